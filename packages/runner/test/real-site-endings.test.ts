/**
 * How runs end on real-site shapes (issue 23), on the runner's port in real headless Firefox:
 * `done` after a save that leaves a fresh empty "add another" form, and a click that leaves a
 * page behind a `beforeunload` prompt (the prompt answered, the navigation reported, and no
 * empty tree passed off as the next page).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, MemoryStore, type ProviderConfig } from "@webbrain/agent";
import {
  type FixtureServer,
  findRef,
  lastToolResultText,
  nodesIn,
  refByName,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
  toolResultTexts,
  WITH_NODES,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserConnection, openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { loadPageScript } from "../src/port/page-script-source.js";

let server: FixtureServer;
let connection: BrowserConnection;
let port: BidiBrowserPort;
let tab: string;
let workDir: string;
let llm: ScriptedLlm | undefined;

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/slow-body.html": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.write("<!doctype html><html><head><title>Slow</title></head>");
        setTimeout(() => res.end("<body><h1>Late</h1><button>Arrived late</button></body></html>"), 1_500);
      },
    },
  });
  connection = await openBrowserConnection({});
  workDir = await mkdtemp(join(tmpdir(), "webbrain-endings-test-"));
  port = await BidiBrowserPort.open({
    client: connection.client,
    pageScript: await loadPageScript(),
    downloadsDir: join(workDir, "downloads"),
    ownsBrowser: true,
  });
  tab = port.tabs.activeId!;
}, 120_000);

afterAll(async () => {
  await llm?.close();
  port?.dispose();
  await connection?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

function provider(baseUrl: string): ProviderConfig {
  return {
    id: "llamacpp",
    kind: "openai-compatible",
    label: "scripted",
    baseUrl,
    model: "scripted-1",
    apiKey: "test-key",
    tier: "full",
    vision: false,
    timeoutMs: 20_000,
  } as ProviderConfig;
}

describe("done after a save", () => {
  it("is not refused for the fresh empty form an 'add another' page shows after the save", async () => {
    await port.navigate(tab, server.url("/runner/add-another.html"));
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
        (req) => ({
          toolCalls: [
            {
              name: "type_ax",
              arguments: { ref_id: findRef(lastToolResultText(req), "textbox", "Name"), value: "Ada" },
            },
          ],
        }),
        (req) => ({
          toolCalls: [
            {
              name: "type_ax",
              arguments: {
                ref_id: findRef(toolResultTexts(req)[0] ?? "", "textbox", "Email"),
                value: "ada@example.com",
              },
            },
          ],
        }),
        (req) => ({
          toolCalls: [
            {
              name: "click_ax",
              arguments: { ref_id: findRef(toolResultTexts(req)[0] ?? "", "button", "Save contact") },
            },
          ],
        }),
        { toolCalls: [{ name: "done", arguments: { summary: "Saved Ada as a contact." } }] },
      ],
    });
    const agent = new Agent({ port, store: new MemoryStore(), provider: provider(llm.baseUrl) });
    const result = await agent.processMessage(tab, "add Ada (ada@example.com) to my contacts", {
      mode: "act",
    });
    const texts = llm.requests.flatMap((req) => toolResultTexts(req));
    expect(texts.join("\n")).not.toContain("done refused");
    expect(result).toMatchObject({ status: "done", text: "Saved Ada as a contact." });
    expect(llm.requests).toHaveLength(5);
    const saved = await port.pageAction(tab, "read_page", {});
    expect(JSON.stringify(saved)).toContain("Ada <ada@example.com>");
    await llm.close();
    llm = undefined;
  });

  it("is still refused while a form someone started shows invalid fields", async () => {
    await port.navigate(tab, server.url("/runner/add-another.html"));
    const nodes = nodesIn(await port.pageAction(tab, "get_accessibility_tree", WITH_NODES));
    await port.pageAction(tab, "type_ax", {
      ref_id: refByName(nodes, "textbox", "Email"),
      value: "not-an-email",
    });
    const probe = await port.pageAction(tab, "probe_completion", {});
    expect(probe.forms).toEqual([expect.objectContaining({ invalid: 2, changed: 1 })]);
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        { toolCalls: [{ name: "done", arguments: { summary: "Saved the contact." } }] },
        (req) => {
          expect(lastToolResultText(req)).toContain("done refused (blockedDone 1/2)");
          return { text: "stopped" };
        },
      ],
    });
    const agent = new Agent({ port, store: new MemoryStore(), provider: provider(llm.baseUrl) });
    await agent.processMessage(tab, "add a contact", { mode: "act" });
    expect(llm.requests).toHaveLength(2);
    await llm.close();
    llm = undefined;
  });
});

describe("a click that leaves a page behind a beforeunload prompt", () => {
  it("reports the navigation and the answered prompt, and the next tree is the new page's", async () => {
    await port.navigate(tab, server.url("/runner/leave-guard.html"));
    const nodes = nodesIn(await port.pageAction(tab, "get_accessibility_tree", WITH_NODES));
    // A trusted click in the page first: Firefox asks before unload only after a user gesture.
    await port.pageAction(tab, "click_ax", { ref_id: refByName(nodes, "textbox", "Draft") });
    const clicked = await port.pageAction(tab, "click_ax", {
      ref_id: refByName(nodes, "link", "Go to products"),
    });
    expect(clicked).toMatchObject({
      success: true,
      navigated: true,
      url: server.url("/runner/product-form.html"),
      dialogs: [expect.stringMatching(/^beforeunload ".*" -> accepted$/)],
    });
    expect(JSON.stringify(clicked)).not.toContain("focus moved");
    const next = await port.pageAction(tab, "get_accessibility_tree", {});
    expect(next.success).toBe(true);
    expect(String(next.tree)).toMatch(/^heading "Create a product" level=1$/m);
    expect(findRef(String(next.tree), "button", "Save product")).toBeGreaterThan(0);
  });

  it("never answers an empty tree as a success while the document is still loading", async () => {
    // The body arrives a while after the head: a tree read in between sees no body at all.
    await connection.client.send("browsingContext.navigate", {
      context: tab,
      url: server.url("/slow-body.html"),
      wait: "none",
    });
    await waitFor(async () => port.documents.url(tab) === server.url("/slow-body.html"), {
      message: "the slow document committed",
    });
    const read = await port.pageAction(tab, "get_accessibility_tree", {});
    expect(read.success, JSON.stringify(read)).toBe(true);
    expect(String(read.tree)).toMatch(/\[\d+\] button "Arrived late"/);
  });
});
