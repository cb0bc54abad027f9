/**
 * The add-on's BrowserPort in real Firefox, through the installed add-on (its manifest,
 * permissions and content scripts in every frame): cross-origin frames addressed by frameId,
 * promote_iframe, verify_form in a frame, execute_js in the page's realm and, under a strict CSP,
 * in the content script's sandbox with the page's objects, refs never reused after a navigation, wait_for_stable waiting for a slow fetch,
 * and a downloaded file attached to a file input.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluate, navigate } from "@webbrain/bidi";
import type { TreeNode } from "@webbrain/protocol";
import {
  type FixtureServer,
  nodesIn,
  refByName,
  refsOf,
  setupFirefox,
  startFixtureServer,
  WITH_NODES,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CANCEL_WAITS_MESSAGE } from "../src/content/content-messages.js";
import { ADDON_PREFS, downloadPrefs } from "./addon-harness.js";
import { PORT_ROUTES, REPORT_CSV, releaseHanging, SLOW_ORDERS_MS } from "./port-fixtures.js";
import { buildAddonWithProbe, openPortProbe, type PortProbe } from "./port-probe.js";

type Result = Record<string, unknown> & { success: boolean; error?: string };

let addon: Awaited<ReturnType<typeof buildAddonWithProbe>> | undefined;
let fixtures: FixtureServer;
let probe: PortProbe;
const downloadsDir = await mkdtemp(join(tmpdir(), "webbrain-port-downloads-"));

beforeAll(async () => {
  addon = await buildAddonWithProbe();
  fixtures = await startFixtureServer({ routes: PORT_ROUTES });
});
afterAll(async () => {
  releaseHanging();
  await fixtures?.close();
  await addon?.remove();
  await rm(downloadsDir, { recursive: true, force: true });
});

const firefox = setupFirefox({
  prefs: {
    ...ADDON_PREFS,
    // Downloads go to this test's temp folder, without asking.
    ...downloadPrefs(downloadsDir),
  },
});

beforeAll(async () => {
  probe = await openPortProbe(firefox.client, addon!.dir);
});

let opened = 0;
/** A fixture page in a new tab; answers the port's tab id (the URL is unique per call). */
async function openTab(path: string): Promise<{ tab: string; url: string; context: string }> {
  const context = await firefox.newTab();
  const url = new URL(path, fixtures.origin);
  url.searchParams.set("case", String(++opened));
  await navigate(firefox.client, context, url.href);
  return { tab: await probe.tabIdOf(url.href), url: url.href, context };
}

function pageAction(tab: string, action: string, params: Record<string, unknown> = {}): Promise<Result> {
  return probe.call<Result>("pageAction", tab, action, params);
}

async function treeOf(tab: string): Promise<string> {
  const result = await pageAction(tab, "get_accessibility_tree", {});
  expect(result.success, String(result.error)).toBe(true);
  return String(result.tree);
}

/** The tree as nodes (tree-nodes.ts): refs by role and name, read as data. */
async function nodesOf(tab: string): Promise<TreeNode[]> {
  return nodesIn(await pageAction(tab, "get_accessibility_tree", WITH_NODES));
}

describe("cross-origin frames", () => {
  const partner = () => `${fixtures.crossOrigin}/port/partner-frame`;
  const other = () => `${fixtures.crossOrigin}/port/other-frame`;

  async function framesPage(urls: string[]): Promise<string> {
    const { tab } = await openTab(`/port/frames?frames=${encodeURIComponent(urls.join(","))}`);
    await waitFor(
      async () => {
        const read = await pageAction(tab, "iframe_read", { urlFilter: "partner-frame" });
        return read.success === true && String(read.text).includes("frame idle");
      },
      { timeoutMs: 15_000, message: "the partner frame never loaded" },
    );
    return tab;
  }

  it("clicks, types, verifies and reads inside a cross-origin frame", async () => {
    const tab = await framesPage([partner()]);
    expect(await treeOf(tab)).toMatch(/iframe "Frame 1"/);

    const clicked = await pageAction(tab, "iframe_click", {
      urlFilter: "partner-frame",
      text: "Pay inside frame",
    });
    expect(clicked).toMatchObject({ success: true, frame: partner() });

    const typed = await pageAction(tab, "iframe_type", {
      urlFilter: "partner-frame",
      selector: "#holder",
      text: "Ann Example",
    });
    expect(typed).toMatchObject({ success: true, frame: partner() });

    const read = await pageAction(tab, "iframe_read", { urlFilter: "partner-frame" });
    expect(read).toMatchObject({ success: true, src: partner(), via: "frame content script" });
    expect(read.text).toContain(`frame clicked at ${new URL(fixtures.crossOrigin).host}`);

    // verify_form with the urlFilter reads the frame's form, not the top page's.
    const inFrame = await pageAction(tab, "verify_form", { urlFilter: "partner-frame" });
    expect(inFrame.success, String(inFrame.error)).toBe(true);
    expect(JSON.stringify(inFrame)).toContain("Ann Example");
    expect(JSON.stringify(inFrame)).not.toContain("SPRING");
    const top = await pageAction(tab, "verify_form", {});
    expect(JSON.stringify(top)).toContain("SPRING");
    expect(JSON.stringify(top)).not.toContain("Ann Example");
  });

  it("refuses an ambiguous or unknown frame before anything is dispatched", async () => {
    const tab = await framesPage([partner(), other()]);
    const ambiguous = await pageAction(tab, "iframe_click", { urlFilter: "frame", text: "Pay inside frame" });
    expect(ambiguous).toMatchObject({ success: false, code: "ambiguous" });
    expect(ambiguous.error).toMatch(
      /2 frames match that description; the frames are: .*partner-frame.*other-frame/,
    );
    const unknown = await pageAction(tab, "iframe_type", {
      urlFilter: "nope",
      selector: "#holder",
      text: "x",
    });
    expect(unknown).toMatchObject({ success: false, code: "not_found" });
    // Neither frame was clicked.
    for (const urlFilter of ["partner-frame", "other-frame"]) {
      const read = await pageAction(tab, "iframe_read", { urlFilter });
      expect(read.text).toContain("frame idle");
    }
    // Picked by index among the child frames instead.
    const byIndex = await pageAction(tab, "iframe_click", { index: 1, text: "Pay inside frame" });
    expect(byIndex).toMatchObject({ success: true, frame: other() });
  });

  it("promote_iframe answers the one frame's URL", async () => {
    const tab = await framesPage([partner(), other()]);
    expect(await pageAction(tab, "promote_iframe", { url_filter: "other-frame" })).toEqual({
      success: true,
      url: other(),
    });
    expect(await pageAction(tab, "promote_iframe", {})).toMatchObject({
      success: false,
      error: expect.stringMatching(/The page has 2 frames/),
    });
  });
});

describe("execute_js", () => {
  it("runs in the page's own realm and answers its value as JSON", async () => {
    const { tab } = await openTab("/port/app");
    expect(await pageAction(tab, "execute_js", { code: "window.appState.user" })).toEqual({
      success: true,
      result: "ann",
    });
    expect(
      await pageAction(tab, "execute_js", {
        code: "const total = appState.cart.reduce((a, b) => a + b, 0); ({ total, since: appState.since, el: document.querySelector('#greeting'), missing: undefined })",
      }),
    ).toEqual({
      success: true,
      result: { total: 6, since: "1970-01-01T00:00:00.000Z", el: "<p#greeting>", missing: "[undefined]" },
    });
    expect(await pageAction(tab, "execute_js", { code: "Promise.resolve(document.title)" })).toEqual({
      success: true,
      result: "App",
    });
    const thrown = await pageAction(tab, "execute_js", { code: "nothingHere.at(1)" });
    expect(thrown).toMatchObject({
      success: false,
      error: expect.stringMatching(/^The code threw: ReferenceError/),
    });
    const big = await pageAction(tab, "execute_js", { code: "'x'.repeat(50000)" });
    expect(big).toMatchObject({ success: true, truncated: true, result_chars: 50_002 });
    expect(String(big.result).length).toBeLessThan(6_100);
  });

  it("runs under a CSP without 'unsafe-eval' (a script the add-on loads), with the page's objects", async () => {
    const { tab, context } = await openTab("/port/strict-app");
    // The page's own realm refuses eval here (its own script tried).
    expect(await evaluate(firefox.client, context, "window.pageEval")).toBe("EvalError");
    expect(
      await pageAction(tab, "execute_js", {
        code: "const total = appState.cart.reduce((a, b) => a + b, 0); ({ user: window.appState.user, total, since: appState.since, el: document.querySelector('p'), title: document.title })",
      }),
    ).toEqual({
      success: true,
      via: "page script (the page's CSP forbids eval)",
      result: { user: "ann", total: 6, since: "1970-01-01T00:00:00.000Z", el: "<p>", title: "Strict app" },
    });
    // What the code writes lands in the page's own objects.
    expect(
      await pageAction(tab, "execute_js", { code: "appState.user = 'bea'; appState.user" }),
    ).toMatchObject({
      success: true,
      result: "bea",
    });
    expect(await evaluate(firefox.client, context, "window.appState.user")).toBe("bea");
    const thrown = await pageAction(tab, "execute_js", { code: "nothingHere.at(1)" });
    expect(thrown).toMatchObject({
      success: false,
      error: expect.stringMatching(/^The code threw: ReferenceError/),
    });
    const big = await pageAction(tab, "execute_js", { code: "'x'.repeat(50000)" });
    expect(big).toMatchObject({ success: true, truncated: true, result_chars: 50_002 });
    // Statements whose last one is no expression run once and answer nothing.
    expect(
      await pageAction(tab, "execute_js", {
        code: "if (appState.user) { appState.visits = (appState.visits || 0) + 1 }",
      }),
    ).toMatchObject({ success: true, result: "[undefined]" });
    expect(await evaluate(firefox.client, context, "window.appState.visits")).toBe(1);
  });
});

describe("refs across documents of one tab", () => {
  it("never reuses a number after navigation: old refs answer stale, new refs are higher", async () => {
    const { tab } = await openTab("/port/first");
    const first = await nodesOf(tab);
    const beta = refByName(first, "button", "Beta");
    const highest = Math.max(...refsOf(first));
    const moved = await probe.call<Result>("navigate", tab, `${fixtures.origin}/port/second`);
    expect(moved.success, String(moved.error)).toBe(true);
    const second = await nodesOf(tab);
    expect(Math.min(...refsOf(second))).toBeGreaterThan(highest);
    const stale = await pageAction(tab, "click_ax", { ref_id: beta });
    expect(stale.success).toBe(false);
    expect(stale.error).toMatch(/stale/);
    const gamma = await pageAction(tab, "click_ax", { ref_id: refByName(second, "button", "Gamma") });
    expect(gamma.success, String(gamma.error)).toBe(true);
  });
});

describe("tabs", () => {
  it("new_tab answers the page it opened, not the interim about:blank", async () => {
    const url = `${fixtures.origin}/port/second?case=${++opened}`;
    const tab = await probe.call<{ id: string; url: string; title: string }>("newTab", url);
    try {
      expect(tab).toMatchObject({ url, title: "Second" });
    } finally {
      await evaluate(firefox.client, probe.context, `browser.tabs.remove(${Number(tab.id)})`, {
        awaitPromise: true,
      });
    }
  });
});

describe("wait_for_stable", () => {
  it("waits for the tab's fetch in flight, not only a quiet DOM", async () => {
    const { tab } = await openTab("/port/orders");
    const load = refByName(await nodesOf(tab), "button", "Load orders");
    expect((await pageAction(tab, "click_ax", { ref_id: load })).success).toBe(true);
    const stable = await pageAction(tab, "wait_for_stable", { timeout_ms: 10_000 });
    expect(stable, String(stable.error)).toMatchObject({ success: true, requests_in_flight: 0 });
    expect(Number(stable.network_wait_ms)).toBeGreaterThan(SLOW_ORDERS_MS / 3);
    const read = await pageAction(tab, "read_page", {});
    expect(read.text).toContain("3 orders loaded");
  });
});

/** Sends the content script of the tab's top frame the Stop message for page-layer waits. */
function cancelWaitsIn(tab: string): Promise<unknown> {
  return evaluate(
    firefox.client,
    probe.context,
    `browser.tabs.sendMessage(${Number(tab)}, { type: ${JSON.stringify(CANCEL_WAITS_MESSAGE)} }, { frameId: 0 })`,
    { awaitPromise: true },
  );
}

describe("Stop", () => {
  /** Stop must end a call this soon (it races the call; nothing waits for the page). */
  const STOP_WITHIN_MS = 200;

  it("ends a wait_for_stable that waits on a request that never answers", async () => {
    const { tab } = await openTab("/port/orders");
    const hang = refByName(await nodesOf(tab), "button", "Load archive");
    expect((await pageAction(tab, "click_ax", { ref_id: hang })).success).toBe(true);
    const stopped = await probe.callStopped(
      "pageAction",
      [tab, "wait_for_stable", { timeout_ms: 30_000 }],
      1_000,
    );
    expect(stopped).toMatchObject({ ended: "rejected", name: "AbortError" });
    if (stopped.ended === "rejected") expect(stopped.afterStopMs).toBeLessThan(STOP_WITHIN_MS);
  });

  it("ends a wait in the page and sends nothing after it", async () => {
    const { tab } = await openTab("/port/first");
    const stopped = await probe.callStopped(
      "pageAction",
      [tab, "wait_for_element", { text: "never shown", timeout_ms: 30_000 }],
      300,
    );
    expect(stopped).toMatchObject({ ended: "rejected", name: "AbortError" });
    if (stopped.ended === "rejected") expect(stopped.afterStopMs).toBeLessThan(STOP_WITHIN_MS);
    // The wait ended in the page too: nothing is left there to cancel.
    expect(await cancelWaitsIn(tab)).toEqual({ success: true, cancelled: 0 });
    // (A wait that was not stopped is still there, and is what that message ends.)
    const pending = pageAction(tab, "wait_for_element", { text: "never shown", timeout_ms: 30_000 });
    // Cancelled as soon as the page has it (a cancel before that finds nothing and changes nothing).
    await waitFor(async () => ((await cancelWaitsIn(tab)) as { cancelled?: number }).cancelled === 1, {
      message: "the page never held the pending wait_for_element",
    });
    expect(await pending).toMatchObject({ success: false, code: "cancelled" });
    // The port still works after a Stop.
    expect((await pageAction(tab, "read_page", {})).success).toBe(true);
  });
});

describe("what a click started", () => {
  it("reports a download, a new tab, a popup and page dialogs in the runner's fields", async () => {
    const { tab, context } = await openTab("/port/effects");
    const download = await pageAction(tab, "click", { text: "Download report" });
    expect(download.success, String(download.error)).toBe(true);
    expect(download.downloads).toEqual([
      {
        // The server's Content-Disposition names the file; Firefox prefers it to the download attribute.
        filename: "summary.csv",
        url: `${fixtures.origin}/port/files/summary.csv`,
        status: "complete",
        bytes: REPORT_CSV.length,
        path: join(downloadsDir, "summary.csv"),
      },
    ]);
    expect(download.new_tabs).toBeUndefined();

    // The popup blocker refuses a synthetic click's target=_blank too; the add-on opens the link
    // behind the page as the runner's trusted click does, and reports that tab.
    const newTab = await pageAction(tab, "click", { text: "Open second in a new tab" });
    expect(newTab.success, String(newTab.error)).toBe(true);
    expect(newTab.new_tabs).toEqual([{ tab_id: expect.any(String), url: `${fixtures.origin}/port/second` }]);
    expect(newTab.downloads).toBeUndefined();
    const opened = (await probe.call<{ id: string; url: string }[]>("listTabs")).find(
      (info) => info.id === (newTab.new_tabs as { tab_id: string }[] | undefined)?.[0]?.tab_id,
    );
    expect(opened?.url).toBe(`${fixtures.origin}/port/second`);

    // A synthetic click is no user gesture: Firefox's popup blocker refuses the page's
    // window.open, and the click says so, as the runner's result does for a refused popup.
    const popup = await pageAction(tab, "click", { text: "Open account popup" });
    expect(popup).toMatchObject({ success: true, popups_blocked: 1 });
    expect(popup.new_tabs).toBeUndefined();

    const alerted = await pageAction(tab, "click", { text: "Save draft" });
    expect(alerted).toMatchObject({ success: true, dialogs: ['alert "Saved as draft" -> accepted'] });
    const confirmed = await pageAction(tab, "click", { text: "Delete draft" });
    expect(confirmed).toMatchObject({ success: true, dialogs: ['confirm "Delete the draft?" -> accepted'] });
    expect(await evaluate(firefox.client, context, "document.getElementById('answer').textContent")).toBe(
      "deleted",
    );
    // A click that started nothing reports nothing.
    const plain = await pageAction(tab, "read_page", {});
    for (const key of ["downloads", "new_tabs", "popups_blocked", "dialogs"])
      expect(plain[key]).toBeUndefined();
  });
});

describe("paste from the system clipboard", () => {
  async function probeCall(expression: string): Promise<unknown> {
    return JSON.parse(
      await evaluate<string>(firefox.client, probe.context, `webbrainProbe.${expression}`, {
        awaitPromise: true,
      }),
    ) as unknown;
  }

  it("Control+v pastes text copied outside the page after clipboard_read is allowed, and not when denied", async () => {
    const { tab, context } = await openTab("/port/second");
    await probeCall(`writeClipboard(${JSON.stringify("Order 4711 from another app")})`);
    const field = "document.querySelector('input')";
    await evaluate(firefox.client, context, `${field}.focus()`);

    await probeCall('setApproverAnswer("clipboard_read", "deny")');
    await probeCall("takeAsked()");
    const denied = await probe.execute("press_keys", { keys: "Control+v" }, tab, "act", "full");
    expect(denied.isError).toBe(true);
    expect(denied.text).toMatch(/denied clipboard_read/);
    const askedDenied = (await probeCall("takeAsked()")) as { capability: string }[];
    expect(askedDenied.map((request) => request.capability)).toEqual(["interact", "clipboard_read"]);
    expect(await evaluate(firefox.client, context, `${field}.value`)).toBe("");

    await probeCall('setApproverAnswer("clipboard_read", "once")');
    // The model cannot skip the prompt by passing the port's flag itself.
    const pasted = await probe.execute(
      "press_keys",
      { keys: "Control+v", read_clipboard: true },
      tab,
      "act",
      "full",
    );
    expect(pasted.isError, pasted.text).toBe(false);
    expect(pasted.details).toMatchObject({
      pasted_from: "system clipboard",
      effects: ["Control+v: pasted 27 chars from the system clipboard"],
    });
    expect(((await probeCall("takeAsked()")) as { capability: string }[]).map((r) => r.capability)).toEqual([
      "interact",
      "clipboard_read",
    ]);
    expect(await evaluate(firefox.client, context, `${field}.value`)).toBe("Order 4711 from another app");

    // Keys that do not paste never ask for the clipboard.
    const tabbed = await probe.execute("press_keys", { keys: "Tab" }, tab, "act", "full");
    expect(tabbed.isError, tabbed.text).toBe(false);
    expect(((await probeCall("takeAsked()")) as { capability: string }[]).map((r) => r.capability)).toEqual([
      "interact",
    ]);
  });
});

describe("downloads and uploads", () => {
  it("downloads the file behind a link and attaches it to a file input", async () => {
    const { tab } = await openTab("/port/files");
    const nodes = await nodesOf(tab);
    const resolved = await pageAction(tab, "resolve_resource_url", {
      ref_id: refByName(nodes, "link", "Monthly report"),
    });
    expect(resolved).toEqual({ success: true, url: `${fixtures.origin}/port/files/report.csv` });
    const download = await probe.call<{ id: string }>("download", String(resolved.url));
    await waitFor(
      async () => {
        const listed = await probe.call<{ id: string; state: string }[]>("listDownloads");
        return listed.some((item) => item.id === download.id && item.state === "complete");
      },
      { timeoutMs: 15_000, message: "the download never completed" },
    );

    const noPath = await probe.call<Result>("uploadFile", tab, { path: "/etc/passwd", selector: "#attach" });
    expect(noPath).toMatchObject({
      success: false,
      code: "not_offered",
      error: expect.stringMatching(/cannot read files from your disk/),
    });
    const wrongTarget = await probe.call<Result>("uploadFile", tab, {
      downloadId: download.id,
      ref_id: refByName(nodes, "link", "Monthly report"),
    });
    expect(wrongTarget).toMatchObject({
      success: false,
      error: expect.stringMatching(/not an <input type="file">/),
    });

    const uploaded = await probe.call<Result>("uploadFile", tab, {
      downloadId: download.id,
      selector: "#attach",
    });
    expect(uploaded).toMatchObject({ success: true, uploaded: "report.csv", bytes: REPORT_CSV.length });
    // The page reads the file asynchronously (file.text()) before it shows what it got.
    await waitFor(
      async () =>
        String((await pageAction(tab, "read_page", {})).text).includes("report.csv (text/csv): January,1200"),
      { timeoutMs: 10_000, message: "the page never showed the attached file's content" },
    );
  });
});
