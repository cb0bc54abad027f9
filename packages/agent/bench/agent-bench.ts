/**
 * Agent benchmark: what each mode and tier sends on every model call (system prompt + tool
 * JSON, measured on the wire from a real request to a scripted server), against
 *   - a baseline measured in this run: the same prompt with every tool in the catalog (no
 *     mode/tier selection), and
 *   - the issue's reference figure for the original Firefox build (34.7k chars: 19.8k prompt +
 *     14.9k tool JSON), with its targets (Act/Full <= half, Compact <= a quarter).
 * Then the loop's own overhead per step against bare pi-ai calls to the same server.
 * Figures only; nothing here asserts timing.
 */

import { type Context, complete, type Model } from "@mariozechner/pi-ai";
import { ALL_BROWSER_CAPABILITIES, MODES, type Mode, TIERS, type Tier } from "@webbrain/protocol";
import { type RecordedRequest, startScriptedLlm, systemPromptText } from "@webbrain/testkit";
import {
  Agent,
  type BrowserPort,
  MemoryStore,
  type ProviderConfig,
  systemPrompt,
  TOOL_CATALOG,
} from "../src/index.js";

const ORIGINAL_CHARS = 34_700;
const TARGET_FULL = ORIGINAL_CHARS / 2;
const TARGET_COMPACT = ORIGINAL_CHARS / 4;
const STEPS = 40;
const WARMUP_CALLS = 5;

const TREE = '[1] heading "Bench"\n[2] button "Go"';

const port: BrowserPort = {
  capabilities: ALL_BROWSER_CAPABILITIES,
  listTabs: async () => [{ id: "1", url: "https://bench.example/", title: "Bench", active: true }],
  activeTab: async () => ({ id: "1", url: "https://bench.example/", title: "Bench", active: true }),
  getTab: async (id) => ({ id, url: "https://bench.example/", title: "Bench", active: true }),
  navigate: async () => ({ success: true }),
  goBack: async () => ({ success: true }),
  goForward: async () => ({ success: true }),
  newTab: async (url) => ({ id: "2", url, title: "", active: false }),
  pageAction: async (_tab, action) =>
    action === "get_accessibility_tree" ? { success: true, tree: TREE } : { success: true },
  screenshot: async () => ({ mimeType: "image/png", dataBase64: "" }),
  fetchUrl: async (request) => ({
    status: 200,
    statusText: "OK",
    url: request.url,
    headers: {},
    body: "",
    truncated: false,
  }),
  researchUrl: async () => ({ success: true }),
  listDownloads: async () => [],
  readDownload: async (id) => ({ id, filename: "", content: "", encoding: "utf8", truncated: false }),
};

function provider(baseUrl: string, tier: Tier): ProviderConfig {
  return {
    id: "llamacpp",
    kind: "openai-compatible",
    label: "bench",
    baseUrl,
    model: "bench",
    tier,
    vision: true,
  };
}

function wireSizes(request: RecordedRequest): { prompt: number; tools: number } {
  return { prompt: systemPromptText(request).length, tools: JSON.stringify(request.body.tools ?? []).length };
}

async function sizeOf(mode: Mode, tier: Tier): Promise<{ prompt: number; tools: number; count: number }> {
  const llm = await startScriptedLlm({ dialect: "openai-chat", script: [{ text: "ok" }] });
  try {
    const agent = new Agent({ port, store: new MemoryStore(), provider: provider(llm.baseUrl, tier) });
    await agent.processMessage("1", "hi", { mode });
    const request = llm.requests[0];
    if (!request) throw new Error("no request");
    return { ...wireSizes(request), count: (request.body.tools as unknown[]).length };
  } finally {
    await llm.close();
  }
}

/** Baseline in this run: Act/Full prompt with the whole catalog as tools, through pi-ai. */
async function unselectedBaseline(): Promise<number> {
  const llm = await startScriptedLlm({ dialect: "openai-chat", script: [{ text: "ok" }] });
  try {
    const model = modelFor(llm.baseUrl);
    const tools = TOOL_CATALOG.map(({ name, description, parameters }) => ({
      name,
      description,
      parameters,
    }));
    await complete(
      model,
      { systemPrompt: systemPrompt({ mode: "dev", tier: "full" }), messages: [user("hi")], tools },
      { apiKey: "x" },
    );
    const request = llm.requests[0] as RecordedRequest;
    const { prompt, tools: toolChars } = wireSizes(request);
    return prompt + toolChars;
  } finally {
    await llm.close();
  }
}

function user(text: string) {
  return { role: "user" as const, content: text, timestamp: Date.now() };
}

function modelFor(baseUrl: string): Model<"openai-completions"> {
  return {
    id: "bench",
    name: "bench",
    api: "openai-completions",
    provider: "bench",
    baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 32_000,
    maxTokens: 1024,
    compat: { supportsDeveloperRole: false, supportsStore: false },
  };
}

async function loopOverhead(): Promise<{ agentMs: number; bareMs: number }> {
  const toolStep = { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
  const agentLlm = await startScriptedLlm({
    dialect: "openai-chat",
    script: [...Array.from({ length: STEPS - 1 }, () => toolStep), { text: "end" }],
  });
  const bareLlm = await startScriptedLlm({
    dialect: "openai-chat",
    script: Array.from({ length: STEPS + WARMUP_CALLS }, () => ({ text: "end" })),
  });
  try {
    const agent = new Agent({ port, store: new MemoryStore(), provider: provider(agentLlm.baseUrl, "full") });
    let started = performance.now();
    await agent.processMessage("1", "bench", { mode: "ask" });
    const agentMs = (performance.now() - started) / STEPS;
    const model = modelFor(bareLlm.baseUrl);
    const context: Context = { systemPrompt: "bench", messages: [user("bench")] };
    // Warm the SDK client path first so both sides are measured warm.
    for (let index = 0; index < WARMUP_CALLS; index++) await complete(model, context, { apiKey: "x" });
    started = performance.now();
    for (let index = 0; index < STEPS; index++) await complete(model, context, { apiKey: "x" });
    const bareMs = (performance.now() - started) / STEPS;
    return { agentMs, bareMs };
  } finally {
    await agentLlm.close();
    await bareLlm.close();
  }
}

const baseline = await unselectedBaseline();
console.log("Per-call payload: system prompt + tool JSON, chars on the wire (OpenAI chat request)");
console.log(`baseline (this run, every catalog tool, no mode/tier selection): ${baseline}`);
console.log(`reference (original Firefox build, from the issue): ${ORIGINAL_CHARS}`);
console.log("mode/tier   tools  prompt  toolJSON  total   vs baseline  vs original  target");
for (const mode of MODES) {
  for (const tier of TIERS) {
    if (mode === "dev" && tier === "compact") continue;
    const size = await sizeOf(mode, tier);
    const total = size.prompt + size.tools;
    const target =
      mode === "act" && tier === "full" ? TARGET_FULL : tier === "compact" ? TARGET_COMPACT : undefined;
    const verdict = target === undefined ? "" : `${total <= target ? "OK" : "OVER"} (<= ${target})`;
    console.log(
      `${`${mode}/${tier}`.padEnd(11)} ${String(size.count).padStart(5)}  ${String(size.prompt).padStart(6)}  ${String(size.tools).padStart(8)}  ${String(total).padStart(6)}  ${(total / baseline).toFixed(2).padStart(11)}  ${(total / ORIGINAL_CHARS).toFixed(2).padStart(11)}  ${verdict}`,
    );
  }
}
const overhead = await loopOverhead();
console.log(`\nLoop overhead, ${STEPS} steps over HTTP (scripted server, in-memory browser):`);
console.log(`bare pi-ai call (baseline, this run): ${overhead.bareMs.toFixed(2)} ms/step`);
console.log(`agent step (model call + tool + guards + persist): ${overhead.agentMs.toFixed(2)} ms/step`);
console.log(`ratio agent/bare: ${(overhead.agentMs / overhead.bareMs).toFixed(2)}`);
