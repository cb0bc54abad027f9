/**
 * What one executor step costs in BiDi commands: a tool call in, its result out, through the
 * agent's ToolExecutor (ToolRunner) and BidiBrowserPort, counted as the client sends them. The
 * URL and title the executor reads before and after an action come from BiDi events kept in
 * memory, so a click is its page calls and its press, nothing more. Real headless Firefox.
 */
import { type FixtureServer, findRef, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserConnection, openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { loadPageScript } from "../src/port/page-script-source.js";
import { ToolRunner } from "../src/tools/tool-runner.js";

let server: FixtureServer;
let connection: BrowserConnection;
let port: BidiBrowserPort;
let runner: ToolRunner;
let tab: string;

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
  runner = new ToolRunner({ port, tabId: tab, mode: "act", tier: "full", vision: false });
});

afterAll(async () => {
  port?.dispose();
  await connection?.close();
  await server?.close();
});

/** The commands one tool call sends, in order, with its answer. */
async function commandsOf(name: string, args: Record<string, unknown>) {
  const sent: string[] = [];
  const off = connection.client.onCommandSent((method) => sent.push(method));
  try {
    const answer = await runner.call(name, args);
    return { sent, answer };
  } finally {
    off();
  }
}

describe("BiDi commands per executor step", () => {
  it("click_ax: resolve, press, verify; URL and title from memory", async () => {
    await commandsOf("navigate", { url: server.url("/runner/trusted-only.html") });
    const tree = await commandsOf("get_accessibility_tree", {});
    // The second evaluate reads (and resets) the page layer's count of blocked popups
    // (action-side-effects.ts), taken after every page action.
    expect(tree.sent).toEqual(["script.evaluate", "script.evaluate"]);
    const button = findRef(String(tree.answer.result.tree ?? tree.answer.text), "button", "Confirm order");

    const click = await commandsOf("click_ax", { ref_id: button });
    expect(click.answer.result).toMatchObject({ success: true, trusted: true });
    expect(click.sent).toEqual([
      "script.evaluate",
      "input.performActions",
      "script.evaluate",
      "script.evaluate",
    ]);
  });

  it("keeps the URL and title current through pushState, fragments and navigations", async () => {
    await commandsOf("navigate", { url: server.url("/runner/trusted-only.html") });
    const before = await port.getTab(tab);
    expect(before.url).toBe(server.url("/runner/trusted-only.html"));
    expect(before.title).not.toBe("");

    await connection.client.send("script.evaluate", {
      expression: 'history.pushState({}, "", "/pushed/state"); document.title = "Pushed title"',
      target: { context: tab },
      awaitPromise: false,
    });
    await expect.poll(async () => (await port.getTab(tab)).url).toBe(server.url("/pushed/state"));
    await expect.poll(async () => (await port.getTab(tab)).title).toBe("Pushed title");

    await connection.client.send("script.evaluate", {
      expression: 'location.hash = "#part"',
      target: { context: tab },
      awaitPromise: false,
    });
    await expect.poll(async () => (await port.getTab(tab)).url).toBe(server.url("/pushed/state#part"));

    const sent: string[] = [];
    const off = connection.client.onCommandSent((method) => sent.push(method));
    const tabInfo = await port.getTab(tab);
    off();
    expect(sent).toEqual([]);
    expect(tabInfo).toMatchObject({ id: tab, url: server.url("/pushed/state#part"), title: "Pushed title" });

    const back = await port.goBack(tab);
    expect(back).toMatchObject({ success: true, url: server.url("/pushed/state") });
    const navigated = await port.navigate(tab, server.url("/runner/product-form.html"));
    const form = await connection.client.send("script.evaluate", {
      expression: "document.title",
      target: { context: tab },
      awaitPromise: false,
    });
    expect(navigated).toMatchObject({
      success: true,
      url: server.url("/runner/product-form.html"),
      title: form.type === "success" && form.result.type === "string" ? form.result.value : "?",
    });
  });
});
