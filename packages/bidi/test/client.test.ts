import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerWireText, sendAnswerFrame } from "../src/batch/index.js";
import {
  BidiAbortError,
  BidiConnectionClosedError,
  BidiError,
  BidiScriptError,
  BidiTimeoutError,
  callFunction,
  captureScreenshot,
  clickAt,
  connectBidi,
  createTab,
  evaluate,
  type FirefoxBrowser,
  launchFirefox,
  navigate,
  remoteRef,
} from "../src/index.js";

let browser: FirefoxBrowser;
beforeAll(async () => {
  browser = await launchFirefox();
});
afterAll(async () => {
  await browser?.close();
});

const page = (html: string) => `data:text/html,${encodeURIComponent(html)}`;

/** PNG height from the IHDR chunk (bytes 20..23, big-endian). */
function pngHeight(png: Buffer): number {
  expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
  return png.readUInt32BE(20);
}

describe("BidiClient", () => {
  it("sends typed commands and decodes script values", async () => {
    const tab = await createTab(browser.client);
    await navigate(browser.client, tab, page("<title>t</title><p id=x>hello</p>"));
    expect(await evaluate(browser.client, tab, "document.getElementById('x').textContent")).toBe("hello");
    const sum = await callFunction<number>(browser.client, tab, "(a, b) => a + b.n", [2, { n: 40 }]);
    expect(sum).toBe(42);
    const decoded = await evaluate(browser.client, tab, "({a: [1, 'two', null], d: new Date(0), n: NaN})");
    expect(decoded).toEqual({ a: [1, "two", null], d: new Date(0), n: Number.NaN });
  });

  it("keeps sandboxes apart from the page realm", async () => {
    const tab = await createTab(browser.client);
    await navigate(browser.client, tab, page("<script>window.pageVar = 'page'</script>"));
    expect(await evaluate(browser.client, tab, "window.pageVar")).toBe("page");
    expect(await evaluate(browser.client, { context: tab, sandbox: "iso" }, "typeof window.pageVar")).toBe(
      "undefined",
    );
    await evaluate(browser.client, { context: tab, sandbox: "iso" }, "window.isoVar = 1");
    expect(await evaluate(browser.client, tab, "typeof window.isoVar")).toBe("undefined");
  });

  it("passes node references back into the page", async () => {
    const tab = await createTab(browser.client);
    await navigate(browser.client, tab, page("<button id=b>Go</button>"));
    const node = await evaluate<{ type: string; sharedId?: string }>(
      browser.client,
      tab,
      "document.getElementById('b')",
    );
    expect(node.type).toBe("node");
    const id = await callFunction(browser.client, tab, "(el) => el.id", [
      remoteRef({ sharedId: node.sharedId }),
    ]);
    expect(id).toBe("b");
  });

  it("throws BidiError with code, method and the caller's stack", async () => {
    const err = await browser.client
      .send("browsingContext.navigate", { context: "no-such-context", url: "about:blank" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BidiError);
    const bidiErr = err as BidiError;
    expect(bidiErr.code).toBe("no such frame");
    expect(bidiErr.method).toBe("browsingContext.navigate");
    expect(bidiErr.message).toContain("no such frame");
    expect(bidiErr.stack).toContain("client.test.ts");
  });

  it("turns page exceptions into BidiScriptError", async () => {
    const tab = await createTab(browser.client);
    const err = await evaluate(browser.client, tab, "throw new TypeError('boom')").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BidiScriptError);
    expect((err as Error).message).toContain("TypeError: boom");
  });

  it("an answer frame is Firefox's answers verbatim under the caller's id", async () => {
    const ok = await sendAnswerFrame(browser.client, { id: 7, method: "session.status", params: {} });
    expect(ok).toMatchObject({ type: "success", id: 7, result: { ready: false } });
    const bad = await sendAnswerFrame(browser.client, { id: 8, method: "no.suchCommand", params: {} });
    expect(bad).toMatchObject({ type: "error", id: 8, error: "unknown command" });
  });

  it("keeps each answer frame's wire text, under the caller's id, equal to its JSON", async () => {
    const tab = await createTab(browser.client);
    const answers = [
      await sendAnswerFrame(browser.client, { id: 17, method: "browsingContext.getTree", params: {} }),
      await sendAnswerFrame(browser.client, {
        id: 18,
        method: "script.evaluate",
        // Text that needs escaping, non-ASCII, a lone surrogate and numbers of every kind.
        params: {
          expression:
            "({ s: 'quote \" back ' + String.fromCharCode(92, 9, 1, 0xd800) + ' é ✓', n: [0, -1.5, 1e21, 2 ** 53, 0.1] })",
          target: { context: tab },
          awaitPromise: false,
        },
      }),
      await sendAnswerFrame(browser.client, { id: 19, method: "no.suchCommand", params: {} }),
      await sendAnswerFrame(browser.client, { method: "session.status", params: {} }),
    ];
    for (const answer of answers) {
      expect(answerWireText(answer)).toBe(JSON.stringify(answer));
    }
    expect(answers.map((answer) => (answer as { id: number }).id).slice(0, 3)).toEqual([17, 18, 19]);
    expect(answerWireText({ type: "success", id: 1, result: {} })).toBeUndefined();
  });

  it("times out a command that gets no answer, and stays usable", async () => {
    const tab = await createTab(browser.client);
    const err = await browser.client
      .send(
        "script.evaluate",
        { expression: "new Promise(() => {})", target: { context: tab }, awaitPromise: true },
        { timeoutMs: 300 },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BidiTimeoutError);
    expect((err as BidiError).code).toBe("timeout");
    expect((err as Error).message).toContain("within 300 ms");
    expect((err as Error).stack).toContain("client.test.ts");
    expect(await evaluate(browser.client, tab, "1 + 1")).toBe(2);
  });

  it("aborts a pending command through its AbortSignal", async () => {
    const tab = await createTab(browser.client);
    const controller = new AbortController();
    const pending = browser.client.send(
      "script.evaluate",
      { expression: "new Promise(() => {})", target: { context: tab }, awaitPromise: true },
      { signal: controller.signal },
    );
    controller.abort(new Error("user cancelled"));
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BidiAbortError);
    expect((err as Error).message).toContain("user cancelled");
    const already = await browser.client
      .send("session.status", {}, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(already).toBeInstanceOf(BidiAbortError);
    expect(browser.client.pendingCount).toBe(0);
  });

  it("delivers subscribed events and stops after unsubscribe", async () => {
    const tabA = await createTab(browser.client);
    const tabB = await createTab(browser.client);
    const seen: { context: string; text: string }[] = [];
    const off = browser.client.on("log.entryAdded", (params) => {
      if (params.type === "console" && params.source.context) {
        seen.push({ context: params.source.context, text: params.text ?? "" });
      }
    });
    try {
      const subA = await browser.client.subscribe(["log.entryAdded"], [tabA]);
      const subB = await browser.client.subscribe(["log.entryAdded"], [tabB]);
      await evaluate(browser.client, tabA, "console.log('a-before')");
      await expect.poll(() => seen.map((e) => e.text)).toContain("a-before");
      await subA.unsubscribe();
      await evaluate(browser.client, tabA, "console.log('a-after')");
      await evaluate(browser.client, tabB, "console.log('b-fence')");
      await expect.poll(() => seen.map((e) => e.text)).toContain("b-fence");
      expect(seen.map((e) => e.text)).not.toContain("a-after");
      await subB.unsubscribe();
    } finally {
      off();
    }
  });

  it("clicks with trusted input through input.performActions", async () => {
    const tab = await createTab(browser.client);
    await navigate(
      browser.client,
      tab,
      page(
        "<button id=b style='position:absolute;left:50px;top:60px;width:100px;height:40px'>Go</button>" +
          "<script>window.clicks=[];b.addEventListener('click',e=>clicks.push(e.isTrusted))</script>",
      ),
    );
    await clickAt(browser.client, tab, 100, 80);
    expect(await evaluate(browser.client, tab, "window.clicks")).toEqual([true]);
    // A script-made click is untrusted: the check above can tell the difference.
    await evaluate(browser.client, tab, "b.click()");
    expect(await evaluate(browser.client, tab, "window.clicks")).toEqual([true, false]);
  });

  it("captures a full-page screenshot taller than the viewport", async () => {
    const tab = await createTab(browser.client);
    await navigate(browser.client, tab, page("<body style='margin:0'><div style='height:3000px'>tall</div>"));
    const viewportHeight = await evaluate<number>(browser.client, tab, "window.innerHeight");
    const viewport = await captureScreenshot(browser.client, tab);
    const full = await captureScreenshot(browser.client, tab, { full: true });
    expect(pngHeight(viewport)).toBeLessThanOrEqual(viewportHeight + 1);
    expect(pngHeight(full)).toBeGreaterThanOrEqual(3000);
    expect(pngHeight(full)).toBeGreaterThan(viewportHeight);
  });
});

describe("a closed connection", () => {
  it("fails commands at once and reports its reason to onClose", async () => {
    const { startFirefoxProcess } = await import("../src/index.js");
    const proc = await startFirefoxProcess();
    try {
      const session = await connectBidi(proc.wsEndpoint, { defaultTimeoutMs: 0 });
      const reasons: Error[] = [];
      session.client.onClose((r) => reasons.push(r));
      await session.close();
      expect(session.client.closed).toBe(true);
      expect(reasons).toHaveLength(1);
      // No timeout is set (defaultTimeoutMs: 0): only fail-fast can settle this.
      const err = await session.client.send("session.status", {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BidiConnectionClosedError);
      expect((err as BidiError).code).toBe("connection closed");
      expect((err as Error).message).toContain("closed by this client");
      // session.end ran on close, so the same Firefox accepts a new session.
      const again = await connectBidi(proc.wsEndpoint);
      expect(again.browserName).toBe("firefox");
      await again.close();
    } finally {
      await proc.dispose(0);
    }
  });
});
