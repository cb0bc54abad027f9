// Providers: each dialect's request shape on the wire (through pi-ai and the official SDKs it
// wraps), Azure and Bedrock config shapes as far as possible without their servers, and one
// typed error per failure kind.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { type RecordedRequest, startScriptedLlm, useBedrockOverHttp1 } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  Agent,
  AgentError,
  MemoryStore,
  PiAiClient,
  PROVIDER_PRESETS,
  providerFromPreset,
  testConnection,
  toPiModel,
} from "../src/index.js";
import { type Harness, harness, providerFor } from "./harness.js";
import { MemoryBrowser } from "./memory-browser.js";

useBedrockOverHttp1();

let h: Harness | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const treeThenAnswer = [
  { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
  { text: "A shop." },
];

function body(request: RecordedRequest | undefined): Record<string, unknown> {
  if (!request) throw new Error("no request recorded");
  return request.body;
}

describe("request shape per dialect", () => {
  it("openai-chat: system message, function tools, tool results as role tool, SSE", async () => {
    h = await harness({ dialect: "openai-chat", script: treeThenAnswer });
    expect((await h.agent.processMessage("1", "what is this?")).text).toBe("A shop.");
    const first = body(h.llm.requests[0]);
    expect(first).toMatchObject({ model: "scripted-1", stream: true, max_tokens: 4096 });
    const messages = first.messages as { role: string }[];
    expect(messages[0]?.role).toBe("system"); // local servers: no developer role
    const tools = first.tools as { type: string; function: { name: string; parameters: { type: string } } }[];
    expect(
      tools.every((tool) => tool.type === "function" && tool.function.parameters.type === "object"),
    ).toBe(true);
    const second = body(h.llm.requests[1]).messages as { role: string; tool_call_id?: string }[];
    expect(second.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(second[3]?.tool_call_id).toBeTruthy();
    expect(h.llm.requests[0]?.headers.authorization).toBe("Bearer test-key");
  });

  it("openai-responses: instructions or a system item, input items, function_call_output", async () => {
    h = await harness({ dialect: "openai-responses", script: treeThenAnswer });
    expect((await h.agent.processMessage("1", "what is this?")).text).toBe("A shop.");
    const second = body(h.llm.requests[1]);
    expect(second.stream).toBe(true);
    const input = second.input as { type?: string; role?: string }[];
    expect(input.some((item) => item.type === "function_call")).toBe(true);
    expect(input.some((item) => item.type === "function_call_output")).toBe(true);
    const tools = second.tools as { type: string; name: string }[];
    expect(tools[0]).toMatchObject({ type: "function" });
    expect(tools.map((tool) => tool.name)).toContain("click_ax");
  });

  it("anthropic: system field, input_schema tools, tool_use/tool_result blocks, x-api-key", async () => {
    h = await harness({ dialect: "anthropic", script: treeThenAnswer });
    expect((await h.agent.processMessage("1", "what is this?")).text).toBe("A shop.");
    const request = h.llm.requests[1];
    const second = body(request);
    expect(request?.path).toBe("/v1/messages");
    expect(request?.headers["x-api-key"]).toBe("test-key");
    expect(second.system).toBeTruthy();
    const tools = second.tools as { name: string; input_schema: { type: string } }[];
    expect(tools[0]?.input_schema.type).toBe("object");
    const messages = second.messages as { role: string; content: { type: string }[] }[];
    expect(messages[1]?.content.some((block) => block.type === "tool_use")).toBe(true);
    expect(messages[2]?.content.some((block) => block.type === "tool_result")).toBe(true);
  });

  it("Azure OpenAI: Responses API on the deployment, api-key header (scripted Responses server)", async () => {
    const llm = await startScriptedLlm({
      dialect: "openai-responses",
      script: [{ text: "hello from azure" }],
    });
    cleanups.push(() => llm.close());
    const provider = providerFromPreset("azure", {
      model: "gpt-4o",
      baseUrl: `${llm.baseUrl.replace(/\/v1$/, "")}/openai/v1`,
      apiKey: "azure-key",
      azure: { deployment: "my-deployment" },
    });
    const agent = new Agent({
      port: new MemoryBrowser({}, "https://a.example/"),
      store: new MemoryStore(),
      provider,
    });
    const result = await agent.processMessage("1", "hi", { mode: "ask" });
    expect(result.text).toBe("hello from azure");
    const request = llm.requests[0];
    expect(request?.path).toMatch(/\/responses$/);
    expect(request?.headers["api-key"]).toBe("azure-key");
    expect(body(request).model).toBe("my-deployment");
  });

  it("AWS Bedrock: Converse stream on the configured region and model, bearer auth (captured, not answered)", async () => {
    const seen: IncomingMessage[] = [];
    const server = createServer((request, response) => {
      seen.push(request);
      response.writeHead(403, {
        "content-type": "application/json",
        "x-amzn-errortype": "AccessDeniedException",
      });
      response.end(JSON.stringify({ message: "denied by the capture server" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const provider = providerFromPreset("bedrock", {
      model: "anthropic.claude-3-5-sonnet",
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      bedrock: { region: "eu-west-1", bearerToken: "bedrock-token" },
    });
    const { options } = toPiModel(provider);
    expect(options).toMatchObject({ region: "eu-west-1", bearerToken: "bedrock-token" });
    const client = new PiAiClient(provider);
    const error = await client
      .complete({ systemPrompt: "s", messages: [{ role: "user", content: "hi", timestamp: 0 }], tools: [] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentError);
    expect(seen[0]?.method).toBe("POST");
    expect(seen[0]?.url).toBe("/model/anthropic.claude-3-5-sonnet/converse-stream");
    expect(seen[0]?.headers.authorization).toBe("Bearer bedrock-token");
  });

  it("presets: llama.cpp is the default local endpoint; configs name their missing fields", () => {
    expect(PROVIDER_PRESETS.llamacpp?.baseUrl).toBe("http://127.0.0.1:8080/v1");
    for (const id of ["ollama", "lmstudio", "vllm", "openrouter", "openai", "anthropic"])
      expect(PROVIDER_PRESETS[id]).toBeDefined();
    expect(() => toPiModel(providerFromPreset("openai", { model: "gpt-4o" }))).toThrow(/apiKey is empty/);
    expect(() =>
      toPiModel(
        providerFromPreset("azure", { model: "m", baseUrl: "https://r.openai.azure.com", apiKey: "k" }),
      ),
    ).toThrow(/azure.deployment is empty/);
    expect(() => providerFromPreset("nope", { model: "m" })).toThrow(/Unknown provider preset "nope"/);
    const ollama = providerFromPreset("ollama", { model: "qwen3", vision: true });
    expect(ollama).toMatchObject({ tier: "compact", vision: true, kind: "openai-compatible" });
  });
});

describe("typed errors per failure kind", () => {
  it("unreachable: says the server is not reachable and what to check", async () => {
    const llm = await startScriptedLlm({ dialect: "openai-chat", script: [] });
    const provider = providerFor(llm, "openai-chat");
    await llm.close();
    const agent = new Agent({
      port: new MemoryBrowser({}, "https://a.example/"),
      store: new MemoryStore(),
      provider,
    });
    const result = await agent.processMessage("1", "hi");
    expect(result.error?.kind).toBe("provider_unreachable");
    expect(result.text).toMatch(/Could not reach .*Is the server running/);
    expect(result.text).not.toMatch(/\.\./); // the SDK's own full stop is not doubled
    // The same facts as data, for a UI that words them in another language.
    expect(result.error?.provider).toMatchObject({
      provider: provider.label,
      endpoint: provider.baseUrl,
      model: provider.model,
    });
    expect(result.text).toContain(`: ${result.error?.provider?.cause}. Is the server`);
  });

  it("401/403: auth error, with the Ollama origin hint for Ollama", async () => {
    h = await harness({
      script: [{ fail: "status", status: 403 }],
      provider: { id: "ollama", label: "Ollama" },
    });
    const result = await h.agent.processMessage("1", "hi");
    expect(result.error?.kind).toBe("provider_auth");
    expect(result.text).toContain("HTTP 403");
    expect(result.text).toContain("OLLAMA_ORIGINS=moz-extension://*");
    expect(result.error?.provider).toMatchObject({ provider: "Ollama", status: "403", ollamaOrigin: true });
    await h.close();
    h = await harness({
      script: [{ fail: "status", status: 401 }],
      provider: { id: "openrouter", label: "OpenRouter" },
    });
    const unauthorized = await h.agent.processMessage("1", "hi");
    expect(unauthorized.error?.kind).toBe("provider_auth");
    expect(unauthorized.text).toContain("Check the API key");
  });

  it("timeout: a hanging server ends the call after the configured time", async () => {
    h = await harness({ script: [{ fail: "hang" }], provider: { timeoutMs: 400 } });
    const result = await h.agent.processMessage("1", "hi");
    expect(result.error?.kind).toBe("provider_timeout");
    expect(result.text).toContain("did not answer within 0.4 s");
    expect(result.error?.provider?.timeoutSeconds).toBe(0.4);
  });

  it("malformed tool calls: the model is told, and three in a row stop the run", async () => {
    const bad = { toolCalls: [{ name: "click_ax", arguments: {}, rawArguments: '{"ref_id": ' }] };
    h = await harness({ script: [bad, bad, bad] });
    const result = await h.agent.processMessage("1", "click");
    expect(result.status).toBe("stopped");
    expect(result.error?.kind).toBe("malformed_tool_call");
    expect(result.text).toContain("3 malformed tool calls in a row");
    expect(h.browser.named("click_ax")).toHaveLength(0);
    const second = JSON.stringify(h.llm.requests[1]?.body);
    expect(second).toContain("Invalid arguments for click_ax");
  });

  it("test connection lists the endpoint's models, and reports failures typed", async () => {
    const llm = await startScriptedLlm({ dialect: "openai-chat", script: [], models: ["qwen3-8b"] });
    cleanups.push(() => llm.close());
    const ok = await testConnection(providerFor(llm, "openai-chat"));
    expect(ok).toEqual({ ok: true, models: ["qwen3-8b"] });
    const anthropic = await startScriptedLlm({ dialect: "anthropic", script: [], models: ["claude-x"] });
    cleanups.push(() => anthropic.close());
    expect((await testConnection(providerFor(anthropic, "anthropic"))).models).toEqual(["claude-x"]);
    const down = await testConnection({
      ...providerFor(llm, "openai-chat"),
      baseUrl: "http://127.0.0.1:9/v1",
    });
    expect(down.ok).toBe(false);
    expect(down.error?.kind).toBe("provider_unreachable");
  });
});
