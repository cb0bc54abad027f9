/** Shared setup for agent tests: a scripted LLM over HTTP, a MemoryBrowser, an Agent. */
import type { Tier } from "@webbrain/protocol";
import { type Dialect, type ScriptedLlm, type ScriptStep, startScriptedLlm } from "@webbrain/testkit";
import { Agent, type AgentEvent, type AgentOptions, MemoryStore, type ProviderConfig } from "../src/index.js";
import { MemoryBrowser, type PageScript } from "./memory-browser.js";
import { line } from "./scripted-tree.js";

export const SHOP_URL = "https://shop.example/";
export const SHOP_TREE = [
  line(0, "heading", "Shop", { ref: 1 }),
  line(0, "textbox", "Search", { ref: 2 }),
  line(0, "button", "Search", { ref: 3 }),
  line(0, "button", "Add to cart", { ref: 4 }),
  line(0, "link", "Checkout", { ref: 5 }),
];

export interface Harness {
  llm: ScriptedLlm;
  browser: MemoryBrowser;
  store: MemoryStore;
  agent: Agent;
  provider: ProviderConfig;
  events: AgentEvent[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  script: ScriptStep[];
  dialect?: Dialect;
  tier?: Tier;
  vision?: boolean;
  pages?: Record<string, PageScript>;
  startUrl?: string;
  store?: MemoryStore;
  agent?: Partial<AgentOptions>;
  provider?: Partial<ProviderConfig>;
  eventDelayMs?: number;
}

export function providerFor(
  llm: ScriptedLlm,
  dialect: Dialect,
  overrides: Partial<ProviderConfig> = {},
): ProviderConfig {
  const kind =
    dialect === "anthropic" ? "anthropic" : dialect === "openai-responses" ? "openai" : "openai-compatible";
  return {
    id: dialect === "openai-chat" ? "llamacpp" : kind,
    kind,
    label: `scripted ${dialect}`,
    baseUrl: llm.baseUrl,
    model: "scripted-1",
    apiKey: "test-key",
    tier: "full",
    vision: false,
    timeoutMs: 20_000,
    ...(dialect === "openai-responses" ? { openaiApi: "responses" as const } : {}),
    ...overrides,
  };
}

export async function harness(options: HarnessOptions): Promise<Harness> {
  const dialect = options.dialect ?? "openai-chat";
  const llm = await startScriptedLlm({
    dialect,
    script: options.script,
    ...(options.eventDelayMs ? { eventDelayMs: options.eventDelayMs } : {}),
  });
  const browser = new MemoryBrowser(
    options.pages ?? { [SHOP_URL]: { title: "Shop", tree: SHOP_TREE } },
    options.startUrl ?? SHOP_URL,
  );
  const store = options.store ?? new MemoryStore();
  const provider = providerFor(llm, dialect, {
    tier: options.tier ?? "full",
    vision: options.vision ?? false,
    ...options.provider,
  });
  const agent = new Agent({ port: browser, store, provider, ...options.agent });
  const events: AgentEvent[] = [];
  return { llm, browser, store, agent, provider, events, close: () => llm.close() };
}

/** The text of the tool result for `toolName` in a request (openai-chat), newest first. */
export function toolMessages(body: Record<string, unknown>): string[] {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  return messages
    .filter((message) => message.role === "tool")
    .map((message) => JSON.stringify(message.content));
}
