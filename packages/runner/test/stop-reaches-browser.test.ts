/**
 * Stop reaches Firefox: the AbortSignal of a BrowserPort call ends the work in the browser, not
 * only the caller's wait for it. Real headless Firefox, real page layer.
 *
 * - A 60 s wait_for_stable on a page that never settles ends within 200 ms of Stop, and the wait
 *   inside the page ends too (a command abandoned only at the BiDi level would keep waiting there).
 * - An MCP client's cancel (notifications/cancelled) ends the call's wait in Firefox.
 * - During a two-round combobox plan (open, then choose) Stop while the first press is in flight
 *   means nothing more is pressed: the page counts trusted clicks.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type FixtureServer, nodesIn, refByName, startFixtureServer, WITH_NODES } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserConnection, openBrowserConnection } from "../src/browser/browser-connection.js";
import { createMcpServer, runnerToolSource } from "../src/mcp/mcp-server.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { loadPageScript } from "../src/port/page-script-source.js";
import { ToolRunner } from "../src/tools/tool-runner.js";

/** Stop must end a pending wait this soon (issue 17). */
const STOP_WITHIN_MS = 200;
/** How long the wait runs before the test presses Stop. */
const STOP_AFTER_MS = 400;

const RESTLESS_PAGE = `<!doctype html><html><head><title>Restless</title></head><body>
<p id="tick">0</p>
<script>let n = 0; setInterval(() => { document.getElementById("tick").textContent = String(++n); }, 40);</script>
</body></html>`;

/** A combobox that takes no text: one click opens the listbox, a second chooses an option. */
const SIZE_PICKER_PAGE = `<!doctype html><html><head><title>Sizes</title></head><body>
<span id="size-label">Size</span>
<div id="size" role="combobox" tabindex="0" aria-labelledby="size-label" aria-controls="sizes"
  aria-expanded="false" style="display:inline-block;padding:8px;border:1px solid">Pick a size</div>
<div id="sizes" role="listbox" hidden>
  <div role="option" style="padding:8px">Small</div>
  <div role="option" style="padding:8px">Large</div>
</div>
<p id="clicks">combobox 0, option 0</p>
<script>
  const combo = document.getElementById("size");
  const list = document.getElementById("sizes");
  let comboClicks = 0;
  let optionClicks = 0;
  const show = () => { document.getElementById("clicks").textContent = "combobox " + comboClicks + ", option " + optionClicks; };
  combo.addEventListener("click", (event) => {
    if (!event.isTrusted) return;
    comboClicks++;
    list.hidden = false;
    combo.setAttribute("aria-expanded", "true");
    show();
  });
  for (const option of list.children) option.addEventListener("click", (event) => {
    if (!event.isTrusted) return;
    optionClicks++;
    combo.textContent = option.textContent;
    list.hidden = true;
    combo.setAttribute("aria-expanded", "false");
    show();
  });
</script>
</body></html>`;

let server: FixtureServer;
let connection: BrowserConnection;
let port: BidiBrowserPort;
let tab: string;

function html(body: string) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(body);
  };
}

beforeAll(async () => {
  server = await startFixtureServer({
    routes: { "/stop/restless.html": html(RESTLESS_PAGE), "/stop/sizes.html": html(SIZE_PICKER_PAGE) },
  });
  connection = await openBrowserConnection({});
  port = await BidiBrowserPort.open({
    client: connection.client,
    pageScript: await loadPageScript(),
    downloadsDir: "/nonexistent-unused",
    ownsBrowser: true,
  });
  tab = port.tabs.activeId!;
});

afterAll(async () => {
  port?.dispose();
  await connection?.close();
  await server?.close();
});

async function pageText(selector: string): Promise<string> {
  const result = await connection.client.send("script.evaluate", {
    expression: `document.querySelector(${JSON.stringify(selector)}).textContent`,
    target: { context: tab },
    awaitPromise: false,
  });
  return result.type === "success" && result.result.type === "string" ? result.result.value : "";
}

describe("Stop reaches the browser", () => {
  it("ends a 60 s wait_for_stable within 200 ms, in the page too", async () => {
    await port.navigate(tab, server.url("/stop/restless.html"));

    // Control: a call abandoned only at the BiDi level leaves the wait running in the page.
    const bare = new AbortController();
    const abandoned = port.channel.call(
      tab,
      "wait_for_stable",
      { timeout_ms: 60_000 },
      { signal: bare.signal },
    );
    setTimeout(() => bare.abort(new Error("bare abort")), STOP_AFTER_MS);
    await expect(abandoned).rejects.toMatchObject({ code: "aborted" });
    expect(await port.channel.cancelWaits(tab)).toBe(1);

    // Stop through the BrowserPort: the port answers at once and the page's wait is over.
    const stop = new AbortController();
    const started = performance.now();
    const waiting = port.pageAction(tab, "wait_for_stable", { timeout_ms: 60_000 }, { signal: stop.signal });
    let stoppedAt = 0;
    setTimeout(() => {
      stoppedAt = performance.now();
      stop.abort(new Error("Stop pressed"));
    }, STOP_AFTER_MS);
    await expect(waiting).rejects.toMatchObject({ code: "aborted" });
    const endedAfterStop = performance.now() - stoppedAt;
    expect(stoppedAt - started).toBeGreaterThanOrEqual(STOP_AFTER_MS - 5);
    expect(endedAfterStop).toBeLessThan(STOP_WITHIN_MS);
    expect(await port.channel.cancelWaits(tab)).toBe(0);
    // The tab still works after Stop.
    const read = await port.pageAction(tab, "read_page", {});
    expect(read.success).toBe(true);
  });

  it("presses nothing more once Stop fires during a multi-round plan", async () => {
    await port.navigate(tab, server.url("/stop/sizes.html"));
    const nodes = nodesIn(await port.pageAction(tab, "get_accessibility_tree", WITH_NODES));
    const ref = refByName(nodes, "combobox", "Size");

    // Control: without Stop the plan takes two rounds, two trusted clicks.
    const full = await port.pageAction(tab, "set_field", { ref_id: ref, value: "Large" });
    expect(full).toMatchObject({ success: true, trusted: true });
    expect(await pageText("#clicks")).toBe("combobox 1, option 1");

    await port.navigate(tab, server.url("/stop/sizes.html"));
    const again = nodesIn(await port.pageAction(tab, "get_accessibility_tree", WITH_NODES));
    const stop = new AbortController();
    const presses: string[] = [];
    const sent: string[] = [];
    const off = connection.client.onCommandSent((method) => {
      sent.push(method);
      if (method !== "input.performActions") return;
      presses.push(method);
      stop.abort(new Error("Stop pressed")); // while the first press is in flight
    });
    try {
      const action = port.pageAction(
        tab,
        "set_field",
        { ref_id: refByName(again, "combobox", "Size"), value: "Large" },
        { signal: stop.signal },
      );
      await expect(action).rejects.toMatchObject({ code: "aborted" });
      // Give a second round every chance to happen if Stop did not hold.
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      off();
    }
    expect(presses).toEqual(["input.performActions"]);
    // The press in flight completes in Firefox (it opens the list); the option is never clicked.
    expect(await pageText("#clicks")).toBe("combobox 1, option 0");
    expect(sent.filter((method) => method === "input.performActions")).toHaveLength(1);
  });

  it("ends the browser work of an MCP call the client cancels", async () => {
    await port.navigate(tab, server.url("/stop/restless.html"));
    const runner = new ToolRunner({ port, tabId: tab, mode: "act", tier: "full", vision: false });
    const mcp = createMcpServer(() => runnerToolSource(runner), { confirm: false, tools: { all: true } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: "stop-test", version: "0.0.0" });
    await client.connect(clientSide);
    try {
      const cancel = new AbortController();
      const call = client.callTool(
        { name: "wait_for_stable", arguments: { timeout_ms: 60_000 } },
        undefined,
        {
          signal: cancel.signal,
          timeout: 120_000,
        },
      );
      setTimeout(() => cancel.abort(new Error("cancelled by the MCP client")), STOP_AFTER_MS);
      await expect(call).rejects.toThrow(/cancelled by the MCP client/);
      // The server heard notifications/cancelled and ended the wait inside the page.
      await new Promise((resolve) => setTimeout(resolve, STOP_WITHIN_MS));
      expect(await port.channel.cancelWaits(tab)).toBe(0);
    } finally {
      await client.close();
      await mcp.close();
    }
  });
});
