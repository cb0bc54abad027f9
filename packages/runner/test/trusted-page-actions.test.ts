/**
 * The real page layer (@webbrain/page bundle) driven through the runner's BrowserPort in real
 * Firefox: element actions resolve in the sandbox, are pressed with input.performActions and
 * verified. Pages here check event.isTrusted, hide buttons in closed shadow roots and put
 * controls in cross-origin frames: what the add-on's synthetic path cannot do.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TreeNode } from "@webbrain/protocol";
import {
  type FixtureServer,
  nodesIn,
  refByName,
  refsOf,
  startFixtureServer,
  WITH_NODES,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserConnection, openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { loadPageScript } from "../src/port/page-script-source.js";

let server: FixtureServer;
let connection: BrowserConnection;
let port: BidiBrowserPort;
let tab: string;

/** How long the fixture's orders request takes: far longer than wait_for_stable's quiet period. */
const SLOW_ORDERS_MS = 1_500;
/** Answers of the hanging request still open, released when the test file ends. */
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/api/slow-orders": (_req: IncomingMessage, res: ServerResponse) => {
        setTimeout(() => {
          res.writeHead(200, { "content-type": "text/plain" });
          res.end("3 orders loaded");
        }, SLOW_ORDERS_MS);
      },
      "/api/hanging-archive": (_req: IncomingMessage, res: ServerResponse) => {
        hanging.push(res);
      },
    },
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
  for (const res of hanging) res.end();
  port?.dispose();
  await connection?.close();
  await server?.close();
});

/** One tree read: the text the model reads, and the nodes code reads refs from (tree-nodes.ts). */
async function read(): Promise<{ text: string; nodes: readonly TreeNode[] }> {
  const result = await port.pageAction(tab, "get_accessibility_tree", WITH_NODES);
  expect(result.success, String(result.error)).toBe(true);
  return { text: String(result.tree), nodes: nodesIn(result) };
}

async function tree(): Promise<string> {
  return (await read()).text;
}

/** The ref of the element with this role and name in a fresh tree read. */
async function refOf(role: string, name: string): Promise<number> {
  return refByName((await read()).nodes, role, name);
}

/** What the page itself shows, read in the page's own realm (not through the page layer). */
async function pageText(selector: string): Promise<string> {
  const result = await connection.client.send("script.evaluate", {
    expression: `document.querySelector(${JSON.stringify(selector)}).textContent`,
    target: { context: tab },
    awaitPromise: false,
  });
  return result.type === "success" && result.result.type === "string" ? result.result.value : "";
}

describe("wait_for_stable", () => {
  it("waits for a fetch in flight while the DOM is quiet, then for the DOM it changes", async () => {
    await port.navigate(tab, server.url("/runner/slow-fetch.html"));
    const clicked = await port.pageAction(tab, "click_ax", {
      ref_id: await refOf("button", "Load orders"),
    });
    expect(clicked.success).toBe(true);
    const stable = await port.pageAction(tab, "wait_for_stable", { quiet_ms: 200, timeout_ms: 10_000 });
    expect(stable).toMatchObject({ success: true, stable: true, requests_in_flight: 0 });
    // The page layer alone would have called this quiet after 200 ms, before the answer.
    expect(Number(stable.network_wait_ms)).toBeGreaterThan(0);
    expect(await pageText("#status")).toBe("3 orders loaded");
  });

  it("gives up at its timeout while a request hangs, saying which", async () => {
    await port.navigate(tab, server.url("/runner/slow-fetch.html"));
    await port.pageAction(tab, "click_ax", { ref_id: await refOf("button", "Load archive") });
    const stable = await port.pageAction(tab, "wait_for_stable", { quiet_ms: 100, timeout_ms: 1_000 });
    expect(stable).toMatchObject({ success: false, code: "timeout", requests_in_flight: 1 });
    expect(String(stable.error)).toMatch(
      /1 request\(s\) in flight after 1000 ms \(http:\/\/127\.0\.0\.1:\d+\/api\/hanging-archive\)/,
    );
  });
});

describe("page actions with trusted input", () => {
  it("operates a page that ignores untrusted events", async () => {
    await port.navigate(tab, server.url("/runner/trusted-only.html"));
    const before = await read();
    const typed = await port.pageAction(tab, "type_ax", {
      ref_id: refByName(before.nodes, "textbox", "Coupon code"),
      value: "SAVE10",
    });
    expect(typed).toMatchObject({ success: true, verified: true, value: "SAVE10", trusted: true });
    const clicked = await port.pageAction(tab, "click_ax", {
      ref_id: refByName(before.nodes, "button", "Confirm order"),
    });
    expect(clicked).toMatchObject({ success: true, trusted: true });
    expect(await pageText("#log")).toBe("Order confirmed with coupon SAVE10");
    // The plan and the element handle stay in the runner.
    expect(Object.keys(clicked)).not.toEqual(expect.arrayContaining(["plan", "element", "verify", "point"]));
  });

  it("commits a custom combobox option with set_field and reveals the dependent field", async () => {
    await port.navigate(tab, server.url("/runner/product-form.html"));
    const before = await read();
    expect(before.text).not.toContain('spinbutton "Every"');
    const result = await port.pageAction(tab, "set_field", {
      ref_id: refByName(before.nodes, "combobox", "Billing period"),
      value: "Custom",
      submit: true,
    });
    expect(result).toMatchObject({ success: true, trusted: true });
    const after = await tree();
    expect(after).toMatch(/combobox "Billing period" value="Custom"/);
    expect(after).toMatch(/spinbutton "Every" value="1"/);
  });

  it("types with keys: replaces the old value, Tab moves focus", async () => {
    await port.navigate(tab, server.url("/runner/product-form.html"));
    const before = await read();
    const name = refByName(before.nodes, "textbox", "Name");
    await port.pageAction(tab, "type_ax", { ref_id: name, value: "first" });
    expect(await port.pageAction(tab, "type_ax", { ref_id: name, value: "Pro plan" })).toMatchObject({
      value: "Pro plan",
    });
    const keys = await port.pageAction(tab, "press_keys", { keys: ["Tab"] });
    expect(keys).toMatchObject({
      success: true,
      trusted: true,
      pressed: ["Tab"],
      // Verified after the keys: the focus now, not the focus the resolve call saw.
      focused: { role: "textbox", name: "Price" },
      effect: { changed: true, changes: ['focus moved to textbox "Price"'] },
    });
    const focused = await connection.client.send("script.evaluate", {
      expression: "document.activeElement.id",
      target: { context: tab },
      awaitPromise: false,
    });
    expect(focused).toMatchObject({ result: { value: "price" } });
  });

  it("clicks inside a closed shadow root with a trusted click", async () => {
    await port.navigate(tab, server.url("/runner/browser-features.html"));
    const before = await read();
    const result = await port.pageAction(tab, "click_ax", {
      ref_id: refByName(before.nodes, "button", "Secret action"),
    });
    expect(result).toMatchObject({ success: true, trusted: true });
    expect(await pageText("#status")).toBe("secret clicked (trusted: true)");
    // The page's own scripts still cannot reach the closed root.
    const pageSees = await connection.client.send("script.evaluate", {
      expression: "String(document.querySelector('closed-widget').shadowRoot)",
      target: { context: tab },
      awaitPromise: false,
    });
    expect(pageSees).toMatchObject({ result: { value: "null" } });
  });

  it("finds closed roots nested in closed roots and inside a div's open root", async () => {
    await port.navigate(tab, server.url("/runner/nested-shadow.html"));
    const before = await read();
    // The inner root is only reachable once the outer one is recorded: a second probe round.
    const deep = await port.pageAction(tab, "click_ax", {
      ref_id: refByName(before.nodes, "button", "Deep switch"),
    });
    expect(deep).toMatchObject({ success: true, trusted: true });
    expect(await pageText("#status")).toBe("Deep switch clicked (trusted: true)");
    const locked = await port.pageAction(tab, "click_ax", {
      ref_id: refByName(before.nodes, "button", "Locked action"),
    });
    expect(locked).toMatchObject({ success: true, trusted: true });
    expect(await pageText("#status")).toBe("Locked action clicked (trusted: true)");
  });

  it("hovers with a trusted pointer move", async () => {
    await port.navigate(tab, server.url("/runner/browser-features.html"));
    const result = await port.pageAction(tab, "hover", {
      ref_id: await refOf("button", "Hover for details"),
    });
    expect(result).toMatchObject({ success: true, trusted: true });
    expect(await pageText("#status")).toBe("details shown (trusted: true)");
  });

  it("reads and clicks in a cross-origin iframe through its own context", async () => {
    const child = `${server.crossOrigin}/runner/frame-child.html`;
    await port.navigate(
      tab,
      `${server.url("/runner/browser-features.html")}?frame=${encodeURIComponent(child)}`,
    );
    expect(await tree()).toMatch(/iframe "Partner widget" cross-origin/);
    const clicked = await port.pageAction(tab, "iframe_click", {
      urlFilter: "frame-child",
      text: "Inside frame",
    });
    expect(clicked).toMatchObject({ success: true, trusted: true, frame: child });
    const read = await port.pageAction(tab, "iframe_read", { urlFilter: "frame-child" });
    expect(read).toMatchObject({ success: true, src: child, via: "frame context" });
    expect(read.text).toContain("frame clicked (trusted: true)");
    expect(await port.pageAction(tab, "iframe_click", { urlFilter: "nope", text: "x" })).toMatchObject({
      success: false,
      error: expect.stringMatching(/No frame matches that description; the frames are: http/),
    });
    expect(await port.pageAction(tab, "promote_iframe", { url_filter: "frame-child" })).toEqual({
      success: true,
      url: child,
    });
  });

  it("reports the dialog a click opened, with the click's result", async () => {
    await port.navigate(tab, server.url("/runner/browser-features.html"));
    const result = await port.pageAction(tab, "click_ax", {
      ref_id: await refOf("button", "Delete draft"),
    });
    expect(result).toMatchObject({ success: true, dialogs: ['confirm "Delete the draft?" -> accepted'] });
    expect(await pageText("#status")).toBe("confirm answered true");
  });

  it("says when a click navigated, without a verify against the old document", async () => {
    await port.navigate(tab, server.url("/runner/browser-features.html"));
    const result = await port.pageAction(tab, "click_ax", {
      ref_id: await refOf("link", "Go to checkout"),
    });
    expect(result).toMatchObject({ success: true, trusted: true, navigated: true });
    expect(String(result.url)).toContain("/runner/trusted-only.html");
    expect(await tree()).toContain('button "Confirm order"');
  });

  it("keeps refs unique across documents of a tab, and a gone ref is stale", async () => {
    await port.navigate(tab, server.url("/runner/trusted-only.html"));
    const first = await read();
    const confirm = refByName(first.nodes, "button", "Confirm order");
    await port.navigate(tab, server.url("/runner/delete-account.html"));
    const second = await read();
    const refs = refsOf(second.nodes);
    expect(Math.min(...refs)).toBeGreaterThan(confirm);
    const stale = await port.pageAction(tab, "click_ax", { ref_id: confirm });
    expect(stale).toMatchObject({ success: false, code: "stale_ref" });
    expect(stale.error).toMatch(/stale/);
    expect(await pageText("#status")).toBe("");
  });

  it("runs Dev mode's execute_js in the page's own realm", async () => {
    await port.navigate(tab, server.url("/runner/trusted-only.html"));
    expect(
      await port.pageAction(tab, "execute_js", {
        code: "document.title + ' / ' + typeof window.__webbrainPage",
      }),
    ).toEqual({
      success: true,
      result: "Trusted input only / undefined",
    });
    expect((await port.pageAction(tab, "execute_js", { code: "null.x" })).error).toMatch(
      /^The code threw: TypeError/,
    );
  });
});
