// Spec 000's streaming policy against a scripted OpenAI Responses server over real HTTP.
import { type ScriptedLlm, startScriptedLlm } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { AgentError } from "../src/errors.js";
import { PiAiClient } from "../src/providers/provider-client.js";
import type { ProviderConfig } from "../src/providers/provider-config.js";
import {
  mayStream,
  StreamingPolicyClient,
  type StreamingRunFacts,
} from "../src/providers/provider-streaming.js";

const open: ScriptedLlm[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((llm) => llm.close()));
});

function responses(baseUrl: string): ProviderConfig {
  return {
    id: "openai",
    kind: "openai",
    openaiApi: "responses",
    label: "OpenAI",
    baseUrl,
    model: "scripted-1",
    apiKey: "k",
    tier: "full",
    vision: false,
  };
}

const ASK: StreamingRunFacts = { mode: "ask", interactive: true, continued: false, streamingEnabled: true };
const request = {
  systemPrompt: "s",
  messages: [{ role: "user" as const, content: "hi", timestamp: 0 }],
  tools: [],
};

describe("which runs stream", () => {
  const config = responses("http://127.0.0.1:1/v1");
  it("only an interactive, fresh Ask run on OpenAI Responses with the switch on", () => {
    expect(mayStream(config, ASK)).toBe(true);
    expect(mayStream(config, { ...ASK, mode: "act" })).toBe(false);
    expect(mayStream(config, { ...ASK, mode: "dev" })).toBe(false);
    expect(mayStream(config, { ...ASK, interactive: false })).toBe(false);
    expect(mayStream(config, { ...ASK, continued: true })).toBe(false);
    expect(mayStream(config, { ...ASK, streamingEnabled: false })).toBe(false);
    expect(mayStream({ ...config, openaiApi: "chat" }, ASK)).toBe(false);
    expect(mayStream({ ...config, kind: "openai-compatible" }, ASK)).toBe(false);
    expect(mayStream({ ...config, kind: "azure-openai" }, ASK)).toBe(false);
  });
});

describe("StreamingPolicyClient", () => {
  it("a stream that drops after some text is retried once without deltas; the reset comes first", async () => {
    const full = "The lighthouse stood on Pharos island.";
    const llm = await startScriptedLlm({
      dialect: "openai-responses",
      // Opening events plus two of the three text deltas, then the connection is cut.
      script: [{ fail: "drop-mid-stream", text: full, afterEvents: 5 }, { text: full }, { text: "Next." }],
    });
    open.push(llm);
    const log: string[] = [];
    const client = new StreamingPolicyClient(new PiAiClient(responses(llm.baseUrl)), {
      stream: true,
      onStreamReset: () => log.push("reset"),
    });
    const answer = await client.complete(request, { onTextDelta: (delta) => log.push(`delta:${delta}`) });
    expect(answer.content).toEqual([expect.objectContaining({ type: "text", text: full })]);
    expect(log.filter((entry) => entry.startsWith("delta:")).length).toBeGreaterThan(0);
    expect(log.at(-1)).toBe("reset");
    expect(llm.requests).toHaveLength(2);
    // Streaming stays off for the rest of the run: the next turn shows no deltas.
    expect(client.streamingNow).toBe(false);
    const before = log.length;
    await client.complete(request, { onTextDelta: (delta) => log.push(`delta:${delta}`) });
    expect(log.length).toBe(before);
  });

  it("an HTTP error is not retried: one request, the typed error", async () => {
    const llm = await startScriptedLlm({
      dialect: "openai-responses",
      script: [{ fail: "status", status: 400 }, { text: "never asked" }],
    });
    open.push(llm);
    const client = new StreamingPolicyClient(new PiAiClient(responses(llm.baseUrl)), { stream: true });
    const error = await client.complete(request, { onTextDelta: () => undefined }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).kind).toBe("provider_http");
    expect(llm.requests).toHaveLength(1);
  });

  it("a run that may not stream never sees a delta", async () => {
    const llm = await startScriptedLlm({ dialect: "openai-responses", script: [{ text: "Whole answer." }] });
    open.push(llm);
    const deltas: string[] = [];
    const client = new StreamingPolicyClient(new PiAiClient(responses(llm.baseUrl)), { stream: false });
    const answer = await client.complete(request, { onTextDelta: (delta) => deltas.push(delta) });
    expect(answer.content).toEqual([expect.objectContaining({ text: "Whole answer." })]);
    expect(deltas).toEqual([]);
  });
});
