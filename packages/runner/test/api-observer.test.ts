/**
 * The API shortcut observer in the runner, in real headless Firefox: BiDi network events record
 * the page's own fetch (method, URL, status, content type, the request and response body shapes
 * through network.addDataCollector/getData; never its Authorization header or a value), the
 * planner sees the call as API-replay guidance only once the conversation has /allow-api, and
 * the agent then repeats the call with fetch_url instead of clicking. Before /allow-api the
 * guidance is absent and a POST is refused.
 */
import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, MemoryStore, type ProviderConfig } from "@webbrain/agent";
import {
  type FixtureServer,
  lastToolResultText,
  nodesIn,
  readJsonBody,
  refByName,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
  systemPromptText,
  WITH_NODES,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BidiApiObserver } from "../src/browser/api-observer-bidi.js";
import { type BrowserConnection, openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { loadPageScript } from "../src/port/page-script-source.js";

let server: FixtureServer;
let connection: BrowserConnection;
let port: BidiBrowserPort;
let observer: BidiApiObserver;
let tab: string;
let workDir: string;
let llm: ScriptedLlm | undefined;
const carts: { body: Record<string, unknown>; authorization: string | undefined }[] = [];

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/api/cart": async (req: IncomingMessage, res: ServerResponse) => {
        carts.push({
          body: await readJsonBody<Record<string, unknown>>(req),
          authorization: req.headers.authorization,
        });
        res.writeHead(201, { "content-type": "application/json" });
        res.end(JSON.stringify({ count: carts.length }));
      },
    },
  });
  connection = await openBrowserConnection({});
  workDir = await mkdtemp(join(tmpdir(), "webbrain-api-observer-test-"));
  port = await BidiBrowserPort.open({
    client: connection.client,
    pageScript: await loadPageScript(),
    downloadsDir: join(workDir, "downloads"),
    ownsBrowser: true,
  });
  tab = port.tabs.activeId!;
  observer = new BidiApiObserver(connection.client);
  observer.start();
}, 120_000);

afterAll(async () => {
  await llm?.close();
  observer?.stop();
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

describe("API shortcut observer", () => {
  it("records the page's fetch without secrets; with /allow-api the agent repeats it", async () => {
    const opened = await port.navigate(tab, server.url("/api/cart.html"));
    expect(opened.success).not.toBe(false);
    // The user adds one lamp by hand; the page posts it.
    const nodes = nodesIn(await port.pageAction(tab, "get_accessibility_tree", WITH_NODES));
    await port.pageAction(tab, "click_ax", { ref_id: refByName(nodes, "button", "Add to cart") });
    await waitFor(async () => observer.log.calls(tab).length === 1, { message: "the observed fetch" });
    const [call] = observer.log.calls(tab);
    expect(call).toMatchObject({ method: "POST", url: server.url("/api/cart"), status: 201 });
    expect(call!.contentType).toMatch(/application\/json/);
    expect(call!.headers).toContain("content-type");
    expect(call!.headers).not.toContain("authorization");
    expect(JSON.stringify(call)).not.toContain("page-secret-token");
    // Bodies through BiDi's network data collector (Firefox 153): shapes only, no values.
    expect(call!.requestShape).toBe('{"item":"string","qty":"number"}');
    expect(call!.responseShape).toBe('{"count":"number"}');
    expect(JSON.stringify(call)).not.toContain("Lamp");
    expect(carts).toEqual([{ body: { item: "Lamp", qty: 1 }, authorization: "Bearer page-secret-token" }]);

    const cartUrl = server.url("/api/cart");
    const repeat = {
      name: "fetch_url",
      arguments: {
        url: cartUrl,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ item: "Lamp", qty: 2 }),
      },
    };
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        // Without /allow-api: no guidance for the planner, and a POST is refused.
        (req) => {
          expect(systemPromptText(req)).not.toContain("API shortcuts");
          return {
            toolCalls: [
              { name: "submit_plan", arguments: { goal: "add 2 lamps", steps: [{ action: "add" }] } },
            ],
          };
        },
        { toolCalls: [repeat] },
        (req) => {
          expect(lastToolResultText(req)).toMatch(/Refused POST: the user has not typed \/allow-api/);
          return { toolCalls: [{ name: "done", arguments: { summary: "Could not add by API." } }] };
        },
        // With /allow-api: the planner is told about the page's own call, and the agent repeats it.
        (req) => {
          const prompt = systemPromptText(req);
          expect(prompt).toContain("API shortcuts");
          expect(prompt).toContain(
            `- POST ${cartUrl} body {"item":"string","qty":"number"} -> 201 {"count":"number"}`,
          );
          return {
            toolCalls: [
              {
                name: "submit_plan",
                arguments: {
                  goal: "add 2 lamps",
                  steps: [{ action: `POST ${cartUrl} with qty 2`, target: "API" }],
                },
              },
            ],
          };
        },
        { toolCalls: [repeat] },
        (req) => {
          expect(lastToolResultText(req)).toContain('"status":201');
          return {
            toolCalls: [{ name: "done", arguments: { summary: "Added 2 lamps through the shop's API." } }],
          };
        },
      ],
    });
    const agent = new Agent({
      port,
      store: new MemoryStore(),
      provider: provider(llm.baseUrl),
      planBeforeAct: true,
      planApprover: async () => ({ approved: true }),
      apiShortcuts: (tabId) => observer.guidance(tabId),
    });
    const first = await agent.processMessage(tab, "add 2 lamps to the cart", { mode: "act" });
    expect(first.status).toBe("done");
    expect(carts).toHaveLength(1);
    const second = await agent.processMessage(tab, "/allow-api add 2 lamps to the cart", { mode: "act" });
    expect(second).toMatchObject({ status: "done", text: "Added 2 lamps through the shop's API." });
    expect(carts.at(-1)).toEqual({ body: { item: "Lamp", qty: 2 }, authorization: undefined });
    expect(llm.requests).toHaveLength(6);
  });
});
