/**
 * The add-on's settings: providers, max steps, Plan before Act, verbose level and the
 * streaming kill switch.
 *
 * Stored in `browser.storage.local` under SETTINGS_KEY. `parseSettings` accepts anything (an
 * older or hand-edited value) and returns a whole, valid Settings plus the problems it fixed,
 * so a bad stored value never breaks the panel. `validateProvider` is what the settings form
 * runs before saving: each message says which field is wrong and what to enter.
 */

import { isTier, type Tier } from "@webbrain/protocol";
import { t } from "./i18n.js";

export const SETTINGS_KEY = "settings";

/** The wire format a provider speaks (pi-ai's `api` names). */
export type ProviderApi =
  | "openai-completions"
  | "openai-responses"
  | "anthropic-messages"
  | "azure-openai-responses"
  | "bedrock-converse-stream";
export const PROVIDER_APIS: readonly ProviderApi[] = [
  "openai-completions",
  "openai-responses",
  "anthropic-messages",
  "azure-openai-responses",
  "bedrock-converse-stream",
];
/** Protocols whose servers refuse requests without a key. */
const APIS_NEEDING_KEY: readonly ProviderApi[] = [
  "openai-responses",
  "anthropic-messages",
  "azure-openai-responses",
];

export type VerboseLevel = "normal" | "verbose" | "deep";
export const VERBOSE_LEVELS: readonly VerboseLevel[] = ["normal", "verbose", "deep"];

export interface ProviderConfig {
  id: string;
  /** What the user calls it ("llama.cpp on this PC"). */
  label: string;
  api: ProviderApi;
  /**
   * Base URL including the version path, e.g. `http://127.0.0.1:8080/v1`. Azure: the resource
   * endpoint. Bedrock: empty for AWS's own endpoint of the region, or a custom endpoint.
   */
  baseUrl: string;
  /** The API key; for Bedrock its API key (a bearer token). */
  apiKey: string;
  model: string;
  tier: Tier;
  /** The model accepts screenshots. */
  vision: boolean;
  contextWindow: number;
  /** Give up on one model call after this many seconds. */
  timeoutSeconds: number;
  /** Azure OpenAI: the deployment name and API version. */
  azureDeployment: string;
  azureApiVersion: string;
  /** AWS Bedrock: the region, e.g. us-east-1. */
  bedrockRegion: string;
}

export interface Settings {
  providers: ProviderConfig[];
  activeProviderId: string | undefined;
  /** Agent steps per run (spec 000 default 130). */
  maxSteps: number;
  planBeforeAct: boolean;
  verbose: VerboseLevel;
  /**
   * Advanced kill switch (default on): Ask answers from OpenAI Responses render as they stream.
   * Off sends new chats back to whole answers at once.
   */
  streamResponses: boolean;
  /** A vision model gets a viewport screenshot after each action (spec 000; default on). */
  screenshotAfterActions: boolean;
  /** Largest file the agent may download, in MB; a bigger download is stopped and removed. */
  maxDownloadMb: number;
  /** The agent may open, fetch and read file: URLs (local files); default off (url-policy.ts). */
  allowFileUrls: boolean;
  /**
   * How long a scheduled run that hands over to a person (pause_for_user) waits for them, in
   * minutes, before it stops saying it needed a person. The form takes whole minutes; a stored
   * fraction is accepted (tests wait seconds).
   */
  personWaitMinutes: number;
  /**
   * Use the companion (`webbrain companion`, a native-messaging host) for trusted input when
   * Firefox runs with WebDriver BiDi; default off. Turning it on asks for "nativeMessaging".
   */
  companion: boolean;
}

export const DEFAULT_MAX_STEPS = 130;
export const MIN_MAX_STEPS = 1;
export const MAX_MAX_STEPS = 1_000;
export const DEFAULT_MAX_DOWNLOAD_MB = 100;
export const MAX_MAX_DOWNLOAD_MB = 100_000;
export const DEFAULT_PERSON_WAIT_MINUTES = 30;
export const MAX_PERSON_WAIT_MINUTES = 24 * 60;
const DEFAULT_CONTEXT_WINDOW_TOKENS = 32_000;
/** Local models on small machines can take minutes for a long prompt (agent default too). */
export const DEFAULT_TIMEOUT_SECONDS = 180;
export const MIN_TIMEOUT_SECONDS = 5;
export const MAX_TIMEOUT_SECONDS = 3_600;
/** pi-ai puts Azure hosts on the /openai/v1 path, whose API version is "v1". */
export const DEFAULT_AZURE_API_VERSION = "v1";

export const DEFAULT_SETTINGS: Settings = {
  providers: [],
  activeProviderId: undefined,
  maxSteps: DEFAULT_MAX_STEPS,
  planBeforeAct: false,
  verbose: "normal",
  streamResponses: true,
  screenshotAfterActions: true,
  maxDownloadMb: DEFAULT_MAX_DOWNLOAD_MB,
  allowFileUrls: false,
  personWaitMinutes: DEFAULT_PERSON_WAIT_MINUTES,
  companion: false,
};

export interface ProviderPreset {
  key: string;
  label: string;
  api: ProviderApi;
  baseUrl: string;
  model: string;
  tier: Tier;
  vision: boolean;
  needsKey: boolean;
  /** A server on this machine: the settings page says "(local)" in the user's language. */
  local?: boolean;
}

const localServer = (key: string, label: string, baseUrl: string, model: string): ProviderPreset => ({
  key,
  label,
  api: "openai-completions",
  baseUrl,
  model,
  tier: "mid",
  vision: false,
  needsKey: false,
  local: true,
});

const cloudChat = (key: string, label: string, baseUrl: string, model: string): ProviderPreset => ({
  key,
  label,
  api: "openai-completions",
  baseUrl,
  model,
  tier: "full",
  vision: false,
  needsKey: true,
});

/**
 * Spec 000's providers. Local servers first: a new user most likely has llama.cpp or Ollama
 * running already. Models are suggestions the user overwrites (Test connection lists them).
 */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  localServer("llamacpp", "llama.cpp", "http://127.0.0.1:8080/v1", "default"),
  localServer("ollama", "Ollama", "http://127.0.0.1:11434/v1", "qwen3:8b"),
  localServer("lmstudio", "LM Studio", "http://127.0.0.1:1234/v1", "local-model"),
  localServer("vllm", "vLLM", "http://127.0.0.1:8000/v1", ""),
  localServer("sglang", "SGLang", "http://127.0.0.1:30000/v1", ""),
  localServer("localai", "LocalAI", "http://127.0.0.1:8080/v1", ""),
  localServer("jan", "Jan", "http://127.0.0.1:1337/v1", ""),
  localServer("koboldcpp", "KoboldCpp", "http://127.0.0.1:5001/v1", "koboldcpp"),
  localServer("textgen", "text-generation-webui", "http://127.0.0.1:5000/v1", ""),
  {
    key: "openai",
    label: "OpenAI (Responses)",
    api: "openai-responses",
    baseUrl: "https://api.openai.com/v1",
    model: "gpt-4.1-mini",
    tier: "full",
    vision: true,
    needsKey: true,
  },
  {
    ...cloudChat("openai-chat", "OpenAI (chat completions)", "https://api.openai.com/v1", "gpt-4.1-mini"),
    vision: true,
  },
  {
    key: "anthropic",
    label: "Anthropic",
    api: "anthropic-messages",
    baseUrl: "https://api.anthropic.com",
    model: "claude-sonnet-4-5",
    tier: "full",
    vision: true,
    needsKey: true,
  },
  {
    key: "azure",
    label: "Azure OpenAI",
    api: "azure-openai-responses",
    baseUrl: "https://YOUR-RESOURCE.openai.azure.com",
    model: "gpt-4.1-mini",
    tier: "full",
    vision: true,
    needsKey: true,
  },
  {
    key: "bedrock",
    label: "AWS Bedrock",
    api: "bedrock-converse-stream",
    baseUrl: "",
    model: "anthropic.claude-3-5-sonnet-20241022-v2:0",
    tier: "full",
    vision: true,
    needsKey: true,
  },
  {
    ...cloudChat("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "openai/gpt-4.1-mini"),
    vision: true,
  },
  cloudChat("groq", "Groq", "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile"),
  cloudChat(
    "together",
    "Together AI",
    "https://api.together.xyz/v1",
    "meta-llama/Llama-3.3-70B-Instruct-Turbo",
  ),
  cloudChat("deepseek", "DeepSeek", "https://api.deepseek.com/v1", "deepseek-chat"),
  cloudChat("mistral", "Mistral", "https://api.mistral.ai/v1", "mistral-large-latest"),
  cloudChat("xai", "xAI", "https://api.x.ai/v1", "grok-3-mini"),
  cloudChat(
    "fireworks",
    "Fireworks",
    "https://api.fireworks.ai/inference/v1",
    "accounts/fireworks/models/llama-v3p3-70b-instruct",
  ),
  { ...localServer("custom", "OpenAI-compatible server", "http://127.0.0.1:8000/v1", ""), local: false },
];

export interface FieldProblem {
  field: keyof ProviderConfig;
  message: string;
}

/** Checks a provider as typed into the form; an empty list means it can be saved. */
export function validateProvider(provider: ProviderConfig): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (provider.label.trim() === "") problems.push({ field: "label", message: t("problemName") });
  const bedrock = provider.api === "bedrock-converse-stream";
  // Bedrock's endpoint may stay empty: AWS's own endpoint of the region is used.
  if (!(bedrock && provider.baseUrl === "")) {
    let url: URL | undefined;
    try {
      url = new URL(provider.baseUrl);
    } catch {
      problems.push({ field: "baseUrl", message: t("problemUrl") });
    }
    if (url !== undefined && url.protocol !== "http:" && url.protocol !== "https:") {
      problems.push({ field: "baseUrl", message: t("problemUrlScheme") });
    }
  }
  if (provider.model.trim() === "") {
    problems.push({
      field: "model",
      message: t("problemModel"),
    });
  }
  if (!PROVIDER_APIS.includes(provider.api)) {
    problems.push({ field: "api", message: t("problemApi", PROVIDER_APIS.join(", ")) });
  }
  if (APIS_NEEDING_KEY.includes(provider.api) && provider.apiKey.trim() === "") {
    problems.push({ field: "apiKey", message: t("problemApiKey") });
  }
  if (!isTier(provider.tier)) {
    problems.push({ field: "tier", message: t("problemTier") });
  }
  if (!Number.isInteger(provider.contextWindow) || provider.contextWindow < 1_000) {
    problems.push({
      field: "contextWindow",
      message: t("problemContextWindow"),
    });
  }
  if (
    !Number.isInteger(provider.timeoutSeconds) ||
    provider.timeoutSeconds < MIN_TIMEOUT_SECONDS ||
    provider.timeoutSeconds > MAX_TIMEOUT_SECONDS
  ) {
    problems.push({
      field: "timeoutSeconds",
      message: t("problemTimeout", MIN_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS),
    });
  }
  if (provider.api === "azure-openai-responses" && provider.azureDeployment.trim() === "") {
    problems.push({ field: "azureDeployment", message: t("problemAzureDeployment") });
  }
  if (bedrock && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(provider.bedrockRegion)) {
    problems.push({ field: "bedrockRegion", message: t("problemBedrockRegion") });
  }
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseProvider(raw: unknown, index: number, problems: string[]): ProviderConfig | undefined {
  if (!isRecord(raw)) {
    problems.push(`provider #${index + 1} is not an object; dropped`);
    return undefined;
  }
  const text = (key: string, fallback: string) =>
    typeof raw[key] === "string" ? (raw[key] as string) : fallback;
  const provider: ProviderConfig = {
    id: text("id", `provider-${index + 1}`),
    label: text("label", `Provider ${index + 1}`),
    api: PROVIDER_APIS.includes(raw.api as ProviderApi) ? (raw.api as ProviderApi) : "openai-completions",
    baseUrl: text("baseUrl", ""),
    apiKey: text("apiKey", ""),
    model: text("model", ""),
    tier: isTier(raw.tier) ? raw.tier : "mid",
    vision: raw.vision === true,
    contextWindow:
      typeof raw.contextWindow === "number" &&
      Number.isInteger(raw.contextWindow) &&
      raw.contextWindow >= 1_000
        ? raw.contextWindow
        : DEFAULT_CONTEXT_WINDOW_TOKENS,
    timeoutSeconds:
      typeof raw.timeoutSeconds === "number" && Number.isInteger(raw.timeoutSeconds)
        ? raw.timeoutSeconds
        : DEFAULT_TIMEOUT_SECONDS,
    azureDeployment: text("azureDeployment", ""),
    azureApiVersion: text("azureApiVersion", DEFAULT_AZURE_API_VERSION),
    bedrockRegion: text("bedrockRegion", ""),
  };
  const invalid = validateProvider(provider);
  if (invalid.length > 0) {
    problems.push(`provider "${provider.label}": ${invalid.map((p) => p.message).join(" ")}`);
  }
  return provider;
}

/** Turns a stored value (possibly missing, old or hand-edited) into whole Settings. */
export function parseSettings(raw: unknown): { settings: Settings; problems: string[] } {
  const problems: string[] = [];
  if (raw === undefined) return { settings: structuredClone(DEFAULT_SETTINGS), problems };
  if (!isRecord(raw)) {
    return {
      settings: structuredClone(DEFAULT_SETTINGS),
      problems: ["stored settings were not an object; reset"],
    };
  }
  const providers = Array.isArray(raw.providers)
    ? raw.providers.flatMap((p, i) => parseProvider(p, i, problems) ?? [])
    : [];
  const activeId = typeof raw.activeProviderId === "string" ? raw.activeProviderId : undefined;
  const active = providers.find((p) => p.id === activeId) ?? providers[0];
  const maxSteps =
    typeof raw.maxSteps === "number" &&
    Number.isInteger(raw.maxSteps) &&
    raw.maxSteps >= MIN_MAX_STEPS &&
    raw.maxSteps <= MAX_MAX_STEPS
      ? raw.maxSteps
      : DEFAULT_MAX_STEPS;
  const maxDownloadMb =
    typeof raw.maxDownloadMb === "number" &&
    Number.isInteger(raw.maxDownloadMb) &&
    raw.maxDownloadMb >= 1 &&
    raw.maxDownloadMb <= MAX_MAX_DOWNLOAD_MB
      ? raw.maxDownloadMb
      : DEFAULT_MAX_DOWNLOAD_MB;
  const personWaitMinutes =
    typeof raw.personWaitMinutes === "number" &&
    raw.personWaitMinutes > 0 &&
    raw.personWaitMinutes <= MAX_PERSON_WAIT_MINUTES
      ? raw.personWaitMinutes
      : DEFAULT_PERSON_WAIT_MINUTES;
  return {
    settings: {
      providers,
      activeProviderId: active?.id,
      maxSteps,
      planBeforeAct: raw.planBeforeAct === true,
      verbose: VERBOSE_LEVELS.includes(raw.verbose as VerboseLevel)
        ? (raw.verbose as VerboseLevel)
        : "normal",
      streamResponses: raw.streamResponses !== false,
      screenshotAfterActions: raw.screenshotAfterActions !== false,
      maxDownloadMb,
      allowFileUrls: raw.allowFileUrls === true,
      personWaitMinutes,
      companion: raw.companion === true,
    },
    problems,
  };
}

export function providerFromPreset(preset: ProviderPreset, id: string): ProviderConfig {
  return {
    id,
    label: preset.label,
    api: preset.api,
    baseUrl: preset.baseUrl,
    apiKey: "",
    model: preset.model,
    tier: preset.tier,
    vision: preset.vision,
    contextWindow: DEFAULT_CONTEXT_WINDOW_TOKENS,
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
    azureDeployment: "",
    azureApiVersion: DEFAULT_AZURE_API_VERSION,
    bedrockRegion: preset.api === "bedrock-converse-stream" ? "us-east-1" : "",
  };
}
