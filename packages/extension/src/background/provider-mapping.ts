/**
 * The settings page's provider (what the user typed) to the agent core's ProviderConfig.
 * The settings speak in wire protocols because that is what a user can check against their
 * server's docs; the agent speaks in provider kinds.
 */
import type { ProviderConfig as AgentProviderConfig } from "@webbrain/agent";
import type { ProviderConfig } from "../shared/settings.js";

/** AWS's own Bedrock runtime endpoint for a region (used when the endpoint field is empty). */
export function bedrockEndpoint(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}

export function toAgentProvider(provider: ProviderConfig): AgentProviderConfig {
  const common = {
    id: provider.id,
    label: provider.label,
    baseUrl: provider.baseUrl,
    model: provider.model,
    tier: provider.tier,
    vision: provider.vision,
    contextWindow: provider.contextWindow,
    timeoutMs: provider.timeoutSeconds * 1000,
    ...(provider.apiKey ? { apiKey: provider.apiKey } : {}),
  };
  switch (provider.api) {
    case "openai-completions":
      return { ...common, kind: "openai-compatible" };
    case "openai-responses":
      return { ...common, kind: "openai", openaiApi: "responses" };
    case "anthropic-messages":
      return { ...common, kind: "anthropic" };
    case "azure-openai-responses":
      return {
        ...common,
        kind: "azure-openai",
        azure: {
          deployment: provider.azureDeployment,
          ...(provider.azureApiVersion ? { apiVersion: provider.azureApiVersion } : {}),
        },
      };
    case "bedrock-converse-stream":
      return {
        ...common,
        kind: "bedrock",
        baseUrl: provider.baseUrl || bedrockEndpoint(provider.bedrockRegion),
        bedrock: {
          region: provider.bedrockRegion,
          ...(provider.apiKey ? { bearerToken: provider.apiKey } : {}),
        },
      };
  }
}
