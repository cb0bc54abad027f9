/**
 * Provider configuration: which endpoint, which model, and what it can do (tier, vision).
 * `toPiModel` turns it into pi-ai's Model plus per-call options; pi-ai and the official SDKs
 * it wraps do all wire work (no hand-written SSE parsing or message conversion here).
 *
 * Invariants: a config always carries `tier` and `vision` (they pick tools and prompts);
 * `validateProviderConfig` rejects a config with a message naming the missing field before
 * any request is made.
 */
import type { Api, Model, ProviderStreamOptions } from "@mariozechner/pi-ai";
import { isTier, TIERS, type Tier, valuesForMessage } from "@webbrain/protocol";
import { AgentError } from "../errors.js";

export type ProviderKind = "openai-compatible" | "openai" | "anthropic" | "azure-openai" | "bedrock";

export interface ProviderConfig {
  /** Preset id (`llamacpp`, `ollama`, `openai`, ...) or any id for a custom endpoint. */
  id: string;
  kind: ProviderKind;
  /** Human name for messages ("Ollama"). */
  label: string;
  /** API base URL. OpenAI-compatible: up to and including `/v1`. Anthropic: without `/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  tier: Tier;
  /** The model accepts images (screenshots are sent only then). */
  vision: boolean;
  /** Tokens the model can read (default DEFAULT_CONTEXT_WINDOW). */
  contextWindow?: number;
  /** Tokens per answer (default DEFAULT_MAX_TOKENS, spec 000: 4096). */
  maxTokens?: number;
  /** Give up on one model call after this long (default DEFAULT_REQUEST_TIMEOUT_MS). */
  timeoutMs?: number;
  /** OpenAI only: chat completions (default) or the Responses API. */
  openaiApi?: "chat" | "responses";
  azure?: { deployment: string; apiVersion?: string };
  bedrock?: { region: string; bearerToken?: string };
  headers?: Record<string, string>;
}

export const DEFAULT_CONTEXT_WINDOW = 32_000;
export const DEFAULT_MAX_TOKENS = 4_096;
/** Local models on small machines can take minutes for a long prompt. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 180_000;

type Preset = Omit<ProviderConfig, "model" | "apiKey" | "tier" | "vision"> & { tier?: Tier };

const local = (id: string, label: string, baseUrl: string): Preset => ({
  id,
  kind: "openai-compatible",
  label,
  baseUrl,
  tier: "compact",
});
const router = (id: string, label: string, baseUrl: string): Preset => ({
  id,
  kind: "openai-compatible",
  label,
  baseUrl,
  tier: "full",
});

/** Known endpoints. llama.cpp is the default (spec 000: a local server on port 8080). */
export const PROVIDER_PRESETS: Record<string, Preset> = {
  llamacpp: local("llamacpp", "llama.cpp", "http://127.0.0.1:8080/v1"),
  ollama: local("ollama", "Ollama", "http://127.0.0.1:11434/v1"),
  lmstudio: local("lmstudio", "LM Studio", "http://127.0.0.1:1234/v1"),
  vllm: local("vllm", "vLLM", "http://127.0.0.1:8000/v1"),
  sglang: local("sglang", "SGLang", "http://127.0.0.1:30000/v1"),
  localai: local("localai", "LocalAI", "http://127.0.0.1:8080/v1"),
  jan: local("jan", "Jan", "http://127.0.0.1:1337/v1"),
  koboldcpp: local("koboldcpp", "KoboldCpp", "http://127.0.0.1:5001/v1"),
  textgen: local("textgen", "text-generation-webui", "http://127.0.0.1:5000/v1"),
  openrouter: router("openrouter", "OpenRouter", "https://openrouter.ai/api/v1"),
  groq: router("groq", "Groq", "https://api.groq.com/openai/v1"),
  together: router("together", "Together AI", "https://api.together.xyz/v1"),
  deepseek: router("deepseek", "DeepSeek", "https://api.deepseek.com/v1"),
  mistral: router("mistral", "Mistral", "https://api.mistral.ai/v1"),
  xai: router("xai", "xAI", "https://api.x.ai/v1"),
  fireworks: router("fireworks", "Fireworks", "https://api.fireworks.ai/inference/v1"),
  openai: {
    id: "openai",
    kind: "openai",
    label: "OpenAI",
    baseUrl: "https://api.openai.com/v1",
    tier: "full",
  },
  anthropic: {
    id: "anthropic",
    kind: "anthropic",
    label: "Anthropic",
    baseUrl: "https://api.anthropic.com",
    tier: "full",
  },
  azure: { id: "azure", kind: "azure-openai", label: "Azure OpenAI", baseUrl: "", tier: "full" },
  bedrock: { id: "bedrock", kind: "bedrock", label: "AWS Bedrock", baseUrl: "", tier: "full" },
};

export const DEFAULT_PROVIDER_ID = "llamacpp";

/** A config from a preset, with the user's model and overrides. */
export function providerFromPreset(
  presetId: string,
  overrides: Partial<ProviderConfig> & { model: string },
): ProviderConfig {
  const preset = PROVIDER_PRESETS[presetId];
  if (!preset) {
    const known = Object.keys(PROVIDER_PRESETS).join(", ");
    throw new AgentError("config", `Unknown provider preset "${presetId}". Known presets: ${known}.`);
  }
  return { vision: false, ...preset, tier: preset.tier ?? "mid", ...overrides };
}

const LOCAL_HOST = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0)(:|\/)/;

export function isLocalEndpoint(config: ProviderConfig): boolean {
  return LOCAL_HOST.test(config.baseUrl);
}

/** Throws a config error that names the field to fix. */
export function validateProviderConfig(config: ProviderConfig): void {
  const problem = (field: string, what: string) =>
    new AgentError(
      "config",
      `Provider "${config.label || config.id}": ${field} ${what}. Fix it in the provider settings.`,
    );
  if (!config.model) throw problem("model", "is empty");
  if (!isTier(config.tier)) throw problem("tier", `must be ${valuesForMessage(TIERS, false)}`);
  if (config.kind === "azure-openai") {
    if (!config.baseUrl) throw problem("baseUrl", "(the Azure resource endpoint) is empty");
    if (!config.azure?.deployment) throw problem("azure.deployment", "is empty");
    if (!config.apiKey) throw problem("apiKey", "is empty");
    return;
  }
  if (config.kind === "bedrock") {
    if (!config.bedrock?.region) throw problem("bedrock.region", "is empty");
    return;
  }
  if (!config.baseUrl) throw problem("baseUrl", "is empty");
  try {
    new URL(config.baseUrl);
  } catch {
    throw problem("baseUrl", `"${config.baseUrl}" is not a URL`);
  }
  if ((config.kind === "openai" || config.kind === "anthropic") && !config.apiKey)
    throw problem("apiKey", "is empty");
}

function apiOf(config: ProviderConfig): Api {
  switch (config.kind) {
    case "openai-compatible":
      return "openai-completions";
    case "openai":
      return config.openaiApi === "responses" ? "openai-responses" : "openai-completions";
    case "anthropic":
      return "anthropic-messages";
    case "azure-openai":
      return "azure-openai-responses";
    case "bedrock":
      return "bedrock-converse-stream";
  }
}

export interface PiModelAndOptions {
  model: Model<Api>;
  options: ProviderStreamOptions;
}

/** pi-ai's Model and call options for this config. */
export function toPiModel(config: ProviderConfig): PiModelAndOptions {
  validateProviderConfig(config);
  const api = apiOf(config);
  const model: Model<Api> = {
    id: config.model,
    name: config.model,
    api,
    provider: config.id,
    baseUrl: config.baseUrl,
    reasoning: false,
    input: config.vision ? ["text", "image"] : ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: config.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    maxTokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...(config.headers ? { headers: config.headers } : {}),
  };
  if (config.kind === "openai-compatible" && isLocalEndpoint(config)) {
    // Local servers reject OpenAI-only fields; say so instead of letting pi-ai guess from the URL.
    (model as Model<"openai-completions">).compat = {
      supportsDeveloperRole: false,
      supportsStore: false,
      supportsReasoningEffort: false,
      supportsStrictMode: false,
      maxTokensField: "max_tokens",
    };
  }
  const options: ProviderStreamOptions = {
    // Local servers need no key, but the SDKs refuse to send a request without one.
    apiKey: config.apiKey || "no-key",
    maxTokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
    timeoutMs: config.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    // Retries are the agent's decision (overflow recovery, user Continue), not the SDK's.
    maxRetries: 0,
  };
  if (config.kind === "azure-openai" && config.azure) {
    options.azureBaseUrl = config.baseUrl;
    options.azureDeploymentName = config.azure.deployment;
    if (config.azure.apiVersion) options.azureApiVersion = config.azure.apiVersion;
  }
  if (config.kind === "bedrock" && config.bedrock) {
    options.region = config.bedrock.region;
    if (config.bedrock.bearerToken) options.bearerToken = config.bedrock.bearerToken;
  }
  return { model, options };
}
