/**
 * Settings' "Test connection" and model list, over real HTTP against testkit's scripted LLM
 * server: the one listing the add-on and the runner share (packages/agent model-listing.ts),
 * for the OpenAI-compatible and Anthropic dialects (GET /models with each API's headers), and
 * Bedrock, which lists nothing on its runtime API and is tested by a one-line generation
 * through pi-ai. A refused key, a server that is down and a web page instead of an API each
 * get a sentence that names the URL and what to check.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { modelsUrl, testConnection } from "@webbrain/agent";
import { startScriptedLlm, useBedrockOverHttp1 } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { testProviderConnection } from "../src/background/connection-test.js";
import { toAgentProvider } from "../src/background/provider-mapping.js";
import { PROVIDER_PRESETS, type ProviderConfig, providerFromPreset } from "../src/shared/settings.js";

useBedrockOverHttp1();

const base = providerFromPreset(PROVIDER_PRESETS[0]!, "p");
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function downUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/v1`;
}

describe("Test connection over real HTTP", () => {
  it("OpenAI-compatible: lists the server's models with the key as a bearer token, and finds the configured one", async () => {
    const llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [],
      models: ["qwen", "scripted-1"],
      apiKey: "sk-test",
    });
    closers.push(llm.close);
    const provider: ProviderConfig = {
      ...base,
      baseUrl: llm.baseUrl,
      model: "scripted-1",
      apiKey: "sk-test",
    };
    const result = await testProviderConnection(provider);
    expect(result.models).toEqual(["qwen", "scripted-1"]);
    expect(result.modelListed).toBe(true);
    expect(llm.otherRequests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
    expect(llm.otherRequests[0]?.headers.authorization).toBe("Bearer sk-test");

    // The runner's check before a task reads the same listing.
    expect(await testConnection(toAgentProvider(provider))).toEqual({
      ok: true,
      models: ["qwen", "scripted-1"],
    });
  });

  it("OpenAI-compatible: says when the configured model is not among those listed", async () => {
    const llm = await startScriptedLlm({ dialect: "openai-chat", script: [], models: ["other"] });
    closers.push(llm.close);
    const result = await testProviderConnection({ ...base, baseUrl: llm.baseUrl, model: "missing" });
    expect(result).toMatchObject({ models: ["other"], modelListed: false });
  });

  it("OpenAI-compatible: a refused key (HTTP 401) is said as such, in the add-on and to the runner", async () => {
    const llm = await startScriptedLlm({ dialect: "openai-chat", script: [], apiKey: "right" });
    closers.push(llm.close);
    const provider: ProviderConfig = { ...base, baseUrl: llm.baseUrl, apiKey: "wrong" };
    await expect(testProviderConnection(provider)).rejects.toThrow(
      `${llm.baseUrl}/models refused the API key (HTTP 401). Check the key in this provider's settings.`,
    );
    const report = await testConnection(toAgentProvider(provider));
    expect(report).toMatchObject({ ok: false, models: [] });
    expect(report.error?.kind).toBe("provider_auth");
    expect(report.error?.message).toContain("HTTP 401");
  });

  it("Anthropic: its /v1/models path and x-api-key header; a wrong key is refused with 401", async () => {
    const llm = await startScriptedLlm({
      dialect: "anthropic",
      script: [],
      models: ["claude-x"],
      apiKey: "ak",
    });
    closers.push(llm.close);
    const provider: ProviderConfig = {
      ...base,
      api: "anthropic-messages",
      baseUrl: llm.baseUrl,
      model: "claude-x",
      apiKey: "ak",
    };
    expect(modelsUrl(toAgentProvider(provider))).toBe(`${llm.baseUrl}/v1/models`);
    const result = await testProviderConnection(provider);
    expect(result).toMatchObject({ models: ["claude-x"], modelListed: true });
    expect(llm.otherRequests[0]?.headers["x-api-key"]).toBe("ak");
    expect(llm.otherRequests[0]?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(llm.otherRequests[0]?.headers.authorization).toBeUndefined();

    await expect(testProviderConnection({ ...provider, apiKey: "nope" })).rejects.toThrow(
      `${llm.baseUrl}/v1/models refused the API key (HTTP 401)`,
    );
  });

  it("Bedrock: no listing on its runtime API, so a one-line generation through pi-ai; a refused token is said", async () => {
    const llm = await startScriptedLlm({ dialect: "bedrock", script: [{ text: "OK" }], apiKey: "br-token" });
    closers.push(llm.close);
    const bedrock = PROVIDER_PRESETS.find((preset) => preset.key === "bedrock")!;
    const provider: ProviderConfig = {
      ...providerFromPreset(bedrock, "b"),
      baseUrl: llm.baseUrl,
      model: "anthropic.claude-x",
      bedrockRegion: "eu-west-1",
      apiKey: "br-token",
    };
    const result = await testProviderConnection(provider);
    expect(result).toMatchObject({ models: [], answered: true });
    expect(llm.requests.map((r) => r.path)).toEqual(["/model/anthropic.claude-x/converse-stream"]);
    expect(llm.requests[0]?.headers.authorization).toBe("Bearer br-token");

    const refused = await testProviderConnection({ ...provider, apiKey: "wrong" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    // Bedrock's SDK reports the refusal by its exception type; it is still said as a refused key.
    expect((refused as Error).message).toMatch(/refused the request with HTTP 403: AccessDeniedException/);
    expect((refused as Error).message).toContain("Check the API key in the provider settings.");
  });

  it("a server that is down gives a sentence naming the URL and what to check, in the add-on and to the runner", async () => {
    const url = await downUrl();
    await expect(testProviderConnection({ ...base, baseUrl: url })).rejects.toThrow(
      `Could not reach ${url}/models. Check that the server is running and that the base URL (including /v1) is right.`,
    );
    const report = await testConnection(toAgentProvider({ ...base, baseUrl: url }));
    expect(report.error?.kind).toBe("provider_unreachable");
    expect(report.error?.message).toContain(`${url}/models`);
  });

  it("a web page where the API should be is told apart from an API error", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" }).end("<html>router admin</html>");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    await expect(testProviderConnection({ ...base, baseUrl: `http://127.0.0.1:${port}/v1` })).rejects.toThrow(
      /answered, but not with JSON/,
    );
  });
});
