/**
 * The add-on's settings: providers, max steps, Plan before Act, verbose level.
 *
 * Stored in `browser.storage.local` under SETTINGS_KEY. `parseSettings` accepts anything (an
 * older or hand-edited value) and returns a whole, valid Settings plus the problems it fixed,
 * so a bad stored value never breaks the panel. `validateProvider` is what the settings form
 * runs before saving: each message says which field is wrong and what to enter.
 */

export const SETTINGS_KEY = "settings";

/** The wire format a provider speaks (pi-ai's `api` names). */
export type ProviderApi = "openai-completions" | "openai-responses" | "anthropic-messages";
export const PROVIDER_APIS: readonly ProviderApi[] = [
  "openai-completions",
  "openai-responses",
  "anthropic-messages",
];

/** Spec 000's provider tiers: which tool set the agent offers. Compact cannot use Dev mode. */
export type ProviderTier = "compact" | "mid" | "full";
export const PROVIDER_TIERS: readonly ProviderTier[] = ["compact", "mid", "full"];

export type VerboseLevel = "normal" | "verbose" | "deep";
export const VERBOSE_LEVELS: readonly VerboseLevel[] = ["normal", "verbose", "deep"];

export interface ProviderConfig {
  id: string;
  /** What the user calls it ("llama.cpp on this PC"). */
  label: string;
  api: ProviderApi;
  /** Base URL including the version path, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  apiKey: string;
  model: string;
  tier: ProviderTier;
  /** The model accepts screenshots. */
  vision: boolean;
  contextWindow: number;
}

export interface Settings {
  providers: ProviderConfig[];
  activeProviderId: string | undefined;
  /** Agent steps per run (spec 000 default 130). */
  maxSteps: number;
  planBeforeAct: boolean;
  verbose: VerboseLevel;
}

export const DEFAULT_MAX_STEPS = 130;
export const MIN_MAX_STEPS = 1;
export const MAX_MAX_STEPS = 1_000;
const DEFAULT_CONTEXT_WINDOW_TOKENS = 32_000;

export const DEFAULT_SETTINGS: Settings = {
  providers: [],
  activeProviderId: undefined,
  maxSteps: DEFAULT_MAX_STEPS,
  planBeforeAct: false,
  verbose: "normal",
};

export interface ProviderPreset {
  key: string;
  label: string;
  api: ProviderApi;
  baseUrl: string;
  model: string;
  tier: ProviderTier;
  vision: boolean;
  needsKey: boolean;
}

/** Local servers first: a new user most likely has llama.cpp or Ollama running already. */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  {
    key: "llamacpp",
    label: "llama.cpp (local)",
    api: "openai-completions",
    baseUrl: "http://127.0.0.1:8080/v1",
    model: "default",
    tier: "mid",
    vision: false,
    needsKey: false,
  },
  {
    key: "ollama",
    label: "Ollama (local)",
    api: "openai-completions",
    baseUrl: "http://127.0.0.1:11434/v1",
    model: "qwen3:8b",
    tier: "mid",
    vision: false,
    needsKey: false,
  },
  {
    key: "lmstudio",
    label: "LM Studio (local)",
    api: "openai-completions",
    baseUrl: "http://127.0.0.1:1234/v1",
    model: "local-model",
    tier: "mid",
    vision: false,
    needsKey: false,
  },
  {
    key: "openai",
    label: "OpenAI",
    api: "openai-responses",
    baseUrl: "https://api.openai.com/v1",
    model: "gpt-4.1-mini",
    tier: "full",
    vision: true,
    needsKey: true,
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
    key: "openrouter",
    label: "OpenRouter",
    api: "openai-completions",
    baseUrl: "https://openrouter.ai/api/v1",
    model: "openai/gpt-4.1-mini",
    tier: "full",
    vision: true,
    needsKey: true,
  },
  {
    key: "custom",
    label: "Other OpenAI-compatible server",
    api: "openai-completions",
    baseUrl: "http://127.0.0.1:8000/v1",
    model: "",
    tier: "mid",
    vision: false,
    needsKey: false,
  },
];

export interface FieldProblem {
  field: keyof ProviderConfig;
  message: string;
}

/** Checks a provider as typed into the form; an empty list means it can be saved. */
export function validateProvider(provider: ProviderConfig): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (provider.label.trim() === "") problems.push({ field: "label", message: "Give the provider a name." });
  let url: URL | undefined;
  try {
    url = new URL(provider.baseUrl);
  } catch {
    problems.push({ field: "baseUrl", message: "Enter a full URL, such as http://127.0.0.1:8080/v1." });
  }
  if (url !== undefined && url.protocol !== "http:" && url.protocol !== "https:") {
    problems.push({ field: "baseUrl", message: "The URL must start with http:// or https://." });
  }
  if (provider.model.trim() === "") {
    problems.push({
      field: "model",
      message: "Enter the model name the server expects (see Test connection).",
    });
  }
  if (!PROVIDER_APIS.includes(provider.api)) {
    problems.push({ field: "api", message: `Choose one of: ${PROVIDER_APIS.join(", ")}.` });
  }
  if (!PROVIDER_TIERS.includes(provider.tier)) {
    problems.push({ field: "tier", message: "Choose Compact, Mid or Full." });
  }
  if (!Number.isInteger(provider.contextWindow) || provider.contextWindow < 1_000) {
    problems.push({
      field: "contextWindow",
      message: "Context window is a whole number of tokens, at least 1000.",
    });
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
    tier: PROVIDER_TIERS.includes(raw.tier as ProviderTier) ? (raw.tier as ProviderTier) : "mid",
    vision: raw.vision === true,
    contextWindow:
      typeof raw.contextWindow === "number" &&
      Number.isInteger(raw.contextWindow) &&
      raw.contextWindow >= 1_000
        ? raw.contextWindow
        : DEFAULT_CONTEXT_WINDOW_TOKENS,
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
  return {
    settings: {
      providers,
      activeProviderId: active?.id,
      maxSteps,
      planBeforeAct: raw.planBeforeAct === true,
      verbose: VERBOSE_LEVELS.includes(raw.verbose as VerboseLevel)
        ? (raw.verbose as VerboseLevel)
        : "normal",
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
  };
}
