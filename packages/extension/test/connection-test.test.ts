import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startScriptedLlm } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { modelsUrl, testProviderConnection } from "../src/background/connection-test.js";
import { PROVIDER_PRESETS, type ProviderConfig, providerFromPreset } from "../src/shared/settings.js";

const base = providerFromPreset(PROVIDER_PRESETS[0]!, "p");
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("testProviderConnection over real HTTP", () => {
  it("lists an OpenAI-compatible server's models and finds the configured one", async () => {
    const llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [],
      models: ["qwen", "scripted-1"],
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
    expect(llm.otherRequests[0]?.headers.authorization).toBe("Bearer sk-test");
  });

  it("says when the configured model is not among those listed", async () => {
    const llm = await startScriptedLlm({ dialect: "openai-chat", script: [], models: ["other"] });
    closers.push(llm.close);
    const result = await testProviderConnection({ ...base, baseUrl: llm.baseUrl, model: "missing" });
    expect(result.modelListed).toBe(false);
  });

  it("uses Anthropic's path and headers", async () => {
    const llm = await startScriptedLlm({ dialect: "anthropic", script: [], models: ["claude-x"] });
    closers.push(llm.close);
    const provider: ProviderConfig = {
      ...base,
      api: "anthropic-messages",
      baseUrl: llm.baseUrl,
      model: "claude-x",
      apiKey: "ak",
    };
    expect(modelsUrl(provider)).toBe(`${llm.baseUrl}/v1/models`);
    const result = await testProviderConnection(provider);
    expect(result.modelListed).toBe(true);
    expect(llm.otherRequests[0]?.headers["x-api-key"]).toBe("ak");
  });

  it("a server that is down gives a sentence naming the URL and what to check", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const provider = { ...base, baseUrl: `http://127.0.0.1:${port}/v1` };
    await expect(testProviderConnection(provider)).rejects.toThrow(
      `Could not reach http://127.0.0.1:${port}/v1/models. Check that the server is running`,
    );
  });

  it("a refused key and a non-JSON answer are told apart", async () => {
    const server = createServer((request, response) => {
      if (request.url?.startsWith("/auth")) {
        response.writeHead(401).end("no");
      } else {
        response.writeHead(200, { "content-type": "text/html" }).end("<html>router admin</html>");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    await expect(
      testProviderConnection({ ...base, baseUrl: `http://127.0.0.1:${port}/auth` }),
    ).rejects.toThrow(/refused the API key \(HTTP 401\)/);
    await expect(testProviderConnection({ ...base, baseUrl: `http://127.0.0.1:${port}/v1` })).rejects.toThrow(
      /not with JSON/,
    );
  });
});
