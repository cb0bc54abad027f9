// The runner's Azure and Bedrock flags, end to end: flags -> provider config -> pi-ai -> the
// scripted server speaking that provider's wire format over real HTTP.
import { PiAiClient } from "@webbrain/agent";
import { type ScriptedLlm, startScriptedLlm, useBedrockOverHttp1, userTexts } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../src/errors.js";
import { bedrockEndpoint, providerFromFlags, resolveVision } from "../src/run/provider-options.js";

useBedrockOverHttp1();

const open: ScriptedLlm[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((llm) => llm.close()));
});

const ask = {
  systemPrompt: "s",
  messages: [{ role: "user" as const, content: "hello", timestamp: 0 }],
  tools: [],
};

describe("--provider azure", () => {
  it("sends to the deployment with the API version and the key from $AZURE_OPENAI_API_KEY", async () => {
    const llm = await startScriptedLlm({ dialect: "openai-responses", script: [{ text: "from azure" }] });
    open.push(llm);
    const config = providerFromFlags(
      {
        provider: "azure",
        baseUrl: `${llm.baseUrl.replace(/\/v1$/, "")}/openai/v1`,
        model: "gpt-4.1",
        azureDeployment: "team-gpt",
        azureApiVersion: "2025-04-01-preview",
      },
      { AZURE_OPENAI_API_KEY: "az-key" },
    );
    const answer = await new PiAiClient(config).complete(ask);
    expect(answer.content).toEqual([expect.objectContaining({ text: "from azure" })]);
    const request = llm.requests[0]!;
    expect(request.body.model).toBe("team-gpt");
    expect(request.query["api-version"]).toBe("2025-04-01-preview");
    expect(request.headers["api-key"]).toBe("az-key");
  });

  it("says which flag is missing", () => {
    expect(() =>
      providerFromFlags({ provider: "azure", model: "m", baseUrl: "https://x.openai.azure.com" }, {}),
    ).toThrow(/--azure-deployment/);
    expect(() => providerFromFlags({ provider: "azure", model: "m", azureDeployment: "d" }, {})).toThrow(
      /--base-url/,
    );
    expect(() =>
      providerFromFlags({ provider: "openai", model: "m", azureDeployment: "d" }, { OPENAI_API_KEY: "k" }),
    ).toThrow(UsageError);
  });
});

describe("--provider bedrock", () => {
  it("uses the region, AWS's endpoint by default, and the bearer token from $AWS_BEARER_TOKEN_BEDROCK", async () => {
    const defaults = providerFromFlags({ provider: "bedrock", model: "m", bedrockRegion: "eu-west-1" }, {});
    expect(defaults.baseUrl).toBe(bedrockEndpoint("eu-west-1"));
    expect(defaults.bedrock).toEqual({ region: "eu-west-1" });

    const llm = await startScriptedLlm({ dialect: "bedrock", script: [{ text: "from bedrock" }] });
    open.push(llm);
    const config = providerFromFlags(
      { provider: "bedrock", model: "anthropic.claude-x", baseUrl: llm.baseUrl, bedrockRegion: "eu-west-1" },
      { AWS_BEARER_TOKEN_BEDROCK: "br-token" },
    );
    const answer = await new PiAiClient(config).complete(ask);
    expect(answer.content).toEqual([expect.objectContaining({ text: "from bedrock" })]);
    const request = llm.requests[0]!;
    expect(request.path).toBe("/model/anthropic.claude-x/converse-stream");
    expect(request.headers.authorization).toBe("Bearer br-token");
    expect(userTexts(request)).toEqual(["hello"]);
  });

  it("takes $AWS_REGION, and refuses a region that is not one", () => {
    expect(
      providerFromFlags({ provider: "bedrock", model: "m" }, { AWS_REGION: "us-west-2" }).bedrock?.region,
    ).toBe("us-west-2");
    expect(() => providerFromFlags({ provider: "bedrock", model: "m" }, {})).toThrow(/--bedrock-region/);
    expect(() => providerFromFlags({ provider: "bedrock", model: "m", bedrockRegion: "mars" }, {})).toThrow(
      /not an AWS region/,
    );
  });
});

describe("--vision auto", () => {
  it("a preset whose models take images is on without the server's word; any other asks the server's model info", async () => {
    // The server lists its model without vision: only the preset can turn images on here.
    const llm = await startScriptedLlm({ dialect: "openai-chat", script: [] });
    open.push(llm);
    const openai = providerFromFlags(
      { provider: "openai", baseUrl: llm.baseUrl, model: "scripted-1" },
      { OPENAI_API_KEY: "test-key" },
    );
    expect((await resolveVision(openai, "auto")).vision).toBe(true);
    const local = providerFromFlags({ baseUrl: llm.baseUrl, model: "scripted-1" }, {});
    expect((await resolveVision(local, "auto")).vision).toBe(false);
    expect((await resolveVision(openai, "off")).vision).toBe(false);
    expect((await resolveVision(local, "on")).vision).toBe(true);
  });
});
