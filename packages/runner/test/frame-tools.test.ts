/**
 * Frame tools through the runner's BrowserPort in real Firefox, on testkit's frames/checkout.html:
 * a field in a same-origin frame, in a cross-origin frame (the server's other origin) and in a
 * same-origin frame nested in another, plus a field on the top page. Each frame's own page says
 * what was typed there and whether the input was trusted, read in that frame's own realm.
 *
 * Issue 27: iframe_type answered not_found for the same-origin frame's field that the tree showed.
 * A same-origin frame's first document (about:blank) is replaced without a new Window, so the page
 * layer installed there searched that empty document; and its plan's point carried the frame's
 * offset in the parent, though the runner presses it in the frame's own context.
 */
import {
  type FixtureServer,
  type NamedNode,
  nodesIn,
  refByName,
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

const FRAMES = ["same", "cross", "nested"] as const;
type FrameName = (typeof FRAMES)[number];

beforeAll(async () => {
  server = await startFixtureServer();
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

/** checkout.html, loaded with all its frames (BiDi's "complete" waits for the frames' load). */
async function openCheckout(): Promise<void> {
  await port.navigate(tab, server.url("/frames/checkout.html"));
}

/** One tree read: the text the model reads, and the nodes code reads refs from. */
async function read(): Promise<{ text: string; nodes: readonly NamedNode[] }> {
  const result = await port.pageAction(tab, "get_accessibility_tree", WITH_NODES);
  expect(result.success, String(result.error)).toBe(true);
  return { text: String(result.tree), nodes: nodesIn(result) };
}

/** What a frame's own page wrote down about typing, read in that frame's realm (not the layer's). */
async function typedIn(frame: FrameName): Promise<string> {
  const frames = await port.tabs.frames(tab);
  const context = frames.find((info) => info.url.includes(`frame=${frame}`))?.context;
  if (!context) throw new Error(`no frame=${frame} in ${frames.map((info) => info.url).join(", ")}`);
  const result = await connection.client.send("script.evaluate", {
    expression: 'document.getElementById("typed").textContent',
    target: { context },
    awaitPromise: false,
  });
  return result.type === "success" && result.result.type === "string" ? result.result.value : "";
}

describe("iframe_type in same-origin, cross-origin and nested frames", () => {
  it("types by selector into each frame's field, with trusted input, and nowhere else", async () => {
    await openCheckout();
    for (const frame of FRAMES) {
      const typed = await port.pageAction(tab, "iframe_type", {
        urlFilter: `frame=${frame}`,
        selector: "#frame-email",
        text: `${frame}@example.org`,
      });
      expect(typed, frame).toMatchObject({ success: true, trusted: true, verified: true });
      expect(String(typed.frame), frame).toContain(`frame=${frame}`);
      expect(await typedIn(frame)).toBe(`typed ${frame}@example.org (trusted: true)`);
    }
    const top = await port.pageAction(tab, "verify_form", {});
    expect(JSON.stringify(top)).toContain("TOP-NOTE");
    expect(JSON.stringify(top)).not.toContain("@example.org");
  });

  it("types by the tree's ref into same-origin and nested frames' fields (the tree shows no cross-origin field)", async () => {
    await openCheckout();
    const shown = await read();
    expect(shown.text).toMatch(/iframe "Cross-origin frame" cross-origin/);
    expect(shown.text).not.toContain("Email cross");
    for (const frame of ["same", "nested"] as const) {
      const typed = await port.pageAction(tab, "type_ax", {
        ref_id: refByName(shown.nodes, "textbox", `Email ${frame}`),
        value: `ref-${frame}@example.org`,
      });
      expect(typed, frame).toMatchObject({ success: true, trusted: true, verified: true });
      expect(await typedIn(frame)).toBe(`typed ref-${frame}@example.org (trusted: true)`);
    }
  });

  it("picks the frame by the iframe's ref in the tree", async () => {
    await openCheckout();
    const shown = await read();
    for (const [frame, title] of [
      ["same", "Same-origin frame"],
      ["cross", "Cross-origin frame"],
    ] as const) {
      const typed = await port.pageAction(tab, "iframe_type", {
        ref_id: refByName(shown.nodes, "iframe", title),
        selector: "#frame-email",
        text: `by-ref-${frame}@example.org`,
      });
      expect(typed, frame).toMatchObject({ success: true, trusted: true });
      expect(String(typed.frame), frame).toContain(`frame=${frame}`);
      expect(await typedIn(frame)).toBe(`typed by-ref-${frame}@example.org (trusted: true)`);
    }
  });
});

describe("verify_form {urlFilter}", () => {
  it("reads the frame the urlFilter names, not the top page (issue 23)", async () => {
    await openCheckout();
    for (const frame of FRAMES) {
      const typed = await port.pageAction(tab, "iframe_type", {
        urlFilter: `frame=${frame}`,
        selector: "#frame-email",
        text: `${frame}@example.org`,
      });
      expect(typed.success, String(typed.error)).toBe(true);
      const verified = await port.pageAction(tab, "verify_form", { urlFilter: `frame=${frame}` });
      expect(verified.success, String(verified.error)).toBe(true);
      expect(String(verified.frame)).toContain(`frame=${frame}`);
      const text = JSON.stringify(verified);
      expect(text).toContain(`${frame}@example.org`);
      expect(text).not.toContain("TOP-NOTE");
    }
    const unknown = await port.pageAction(tab, "verify_form", { urlFilter: "frame=none" });
    expect(unknown).toMatchObject({ success: false });
    expect(unknown.error).toMatch(/No frame matches that description/);
  });
});
