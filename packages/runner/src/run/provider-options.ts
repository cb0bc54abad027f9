/**
 * The model a `webbrain run` talks to, from its flags. Defaults: llama.cpp at
 * http://127.0.0.1:8080, tier from the preset. Keys come from an environment variable named
 * with --api-key-env, never from a flag (flags end up in shell history and `ps`).
 *
 * Invariants: every bad combination is a UsageError naming the flag to fix; a model endpoint
 * that does not answer at all is a ModelUnavailableError (exit 3) saying how to start or point
 * at one, raised before Firefox is launched.
 */

import {
  AgentError,
  DEFAULT_PROVIDER_ID,
  PROVIDER_PRESETS,
  type ProviderConfig,
  providerFromPreset,
  testConnection,
  validateProviderConfig,
} from "@webbrain/agent";
import type { Tier } from "@webbrain/protocol";
import { ModelUnavailableError, UsageError } from "../errors.js";

export interface ProviderFlags {
  provider?: string;
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  tier?: Tier;
  /** Azure OpenAI: the deployment name (required) and API version (default pi-ai's "v1"). */
  azureDeployment?: string;
  azureApiVersion?: string;
  /** AWS Bedrock: the region (default $AWS_REGION). */
  bedrockRegion?: string;
  /** Give up on one model call after this many seconds (default the agent's 180). */
  requestTimeoutSeconds?: number;
  /** Tokens the model can read (default the agent's DEFAULT_CONTEXT_WINDOW). */
  contextWindow?: number;
}

/** llama.cpp's server answers for whatever model it loaded; a name is still required by the API. */
const LOCAL_DEFAULT_MODEL = "local-model";
/** The reachability probe before launching Firefox: a local server answers in milliseconds. */
const PROBE_TIMEOUT_MS = 5_000;
/** Conventional variables read when --api-key-env is not given. */
const DEFAULT_KEY_ENV: Record<string, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  openrouter: "OPENROUTER_API_KEY",
  groq: "GROQ_API_KEY",
  deepseek: "DEEPSEEK_API_KEY",
  mistral: "MISTRAL_API_KEY",
  xai: "XAI_API_KEY",
  together: "TOGETHER_API_KEY",
  fireworks: "FIREWORKS_API_KEY",
  azure: "AZURE_OPENAI_API_KEY",
  bedrock: "AWS_BEARER_TOKEN_BEDROCK",
};

/** AWS's own Bedrock runtime endpoint of a region. */
export function bedrockEndpoint(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}

const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;

/** The Azure / Bedrock parts of a config from their flags; refuses flags for another provider. */
function cloudParts(
  id: string,
  kind: string,
  flags: ProviderFlags,
  env: Record<string, string | undefined>,
): Partial<ProviderConfig> {
  if (kind !== "azure-openai" && (flags.azureDeployment || flags.azureApiVersion)) {
    throw new UsageError(`--azure-deployment and --azure-api-version are for --provider azure, not ${id}.`);
  }
  if (kind !== "bedrock" && flags.bedrockRegion) {
    throw new UsageError(`--bedrock-region is for --provider bedrock, not ${id}.`);
  }
  if (kind === "azure-openai") {
    if (!flags.azureDeployment) {
      throw new UsageError(
        "--provider azure needs --azure-deployment NAME (the deployment in your Azure resource).",
      );
    }
    if (!flags.baseUrl) {
      throw new UsageError(
        "--provider azure needs --base-url https://RESOURCE.openai.azure.com (the resource endpoint).",
      );
    }
    return {
      azure: {
        deployment: flags.azureDeployment,
        ...(flags.azureApiVersion ? { apiVersion: flags.azureApiVersion } : {}),
      },
    };
  }
  if (kind === "bedrock") {
    const region = flags.bedrockRegion ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    if (!region)
      throw new UsageError(
        "--provider bedrock needs --bedrock-region REGION (or $AWS_REGION), e.g. us-east-1.",
      );
    if (!AWS_REGION.test(region)) {
      throw new UsageError(`--bedrock-region "${region}" is not an AWS region name such as us-east-1.`);
    }
    return { bedrock: { region }, ...(flags.baseUrl ? {} : { baseUrl: bedrockEndpoint(region) }) };
  }
  return {};
}

export function providerFromFlags(
  flags: ProviderFlags,
  env: Record<string, string | undefined>,
): ProviderConfig {
  const id = flags.provider ?? DEFAULT_PROVIDER_ID;
  const preset = PROVIDER_PRESETS[id];
  if (!preset) {
    throw new UsageError(`Unknown --provider "${id}". Known: ${Object.keys(PROVIDER_PRESETS).join(", ")}.`);
  }
  const local = preset.kind === "openai-compatible" && preset.tier === "compact";
  const model = flags.model ?? (local ? LOCAL_DEFAULT_MODEL : undefined);
  if (!model) throw new UsageError(`--provider ${id} needs --model NAME (the model to use).`);
  let apiKey: string | undefined;
  const keyEnv = flags.apiKeyEnv ?? DEFAULT_KEY_ENV[id];
  if (keyEnv) {
    apiKey = env[keyEnv];
    if (flags.apiKeyEnv && !apiKey) {
      throw new UsageError(`--api-key-env ${keyEnv}: that environment variable is empty or not set.`);
    }
  }
  const cloud = cloudParts(id, preset.kind, flags, env);
  // Bedrock's API key is a bearer token; pi-ai passes it as such.
  if (cloud.bedrock && apiKey) cloud.bedrock = { ...cloud.bedrock, bearerToken: apiKey };
  const config = providerFromPreset(id, {
    model,
    ...(flags.baseUrl ? { baseUrl: apiBaseUrl(flags.baseUrl, preset.kind) } : {}),
    ...(flags.tier ? { tier: flags.tier } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(flags.requestTimeoutSeconds ? { timeoutMs: flags.requestTimeoutSeconds * 1000 } : {}),
    ...(flags.contextWindow ? { contextWindow: flags.contextWindow } : {}),
    ...cloud,
  });
  try {
    validateProviderConfig(config);
  } catch (error) {
    if (error instanceof AgentError) {
      const hint = keyEnv ? ` Set ${keyEnv} or pass --api-key-env VAR.` : "";
      throw new UsageError(`${error.message.replace(/ Fix it in the provider settings\.$/, "")}.${hint}`);
    }
    throw error;
  }
  return config;
}

/** OpenAI-compatible servers live under /v1; a bare http://host:port means that. */
function apiBaseUrl(raw: string, kind: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--base-url "${raw}" is not a URL (e.g. http://127.0.0.1:8080).`);
  }
  if (kind === "openai-compatible" && (url.pathname === "/" || url.pathname === "")) url.pathname = "/v1";
  return url.toString().replace(/\/$/, "");
}

/** Throws ModelUnavailableError when nothing answers at the provider's address. */
export async function ensureModelReachable(config: ProviderConfig): Promise<void> {
  if (config.kind === "bedrock" || config.kind === "azure-openai") return;
  const report = await testConnection(config, PROBE_TIMEOUT_MS);
  if (report.ok) return;
  const kind = report.error?.kind;
  // A server without /models (404) or that wants a key for listing still may serve the task.
  if (kind !== "provider_unreachable" && kind !== "provider_timeout") return;
  throw new ModelUnavailableError(modelUnavailableMessage(config, report.error?.message ?? ""));
}

/**
 * Presets whose models take images (the add-on's presets say the same). Local servers and
 * routers serve whatever model was loaded, so only the server can tell (modelTakesImages).
 */
const VISION_PRESETS: ReadonlySet<string> = new Set(["openai", "anthropic", "azure", "bedrock"]);

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

const listsImages = (value: unknown): boolean =>
  Array.isArray(value) && value.some((item) => item === "image" || item === "vision");

/**
 * What the server says about its model: OpenRouter and vLLM-style listings give
 * `architecture.input_modalities` / `input_modalities`, Ollama and LM Studio `capabilities`,
 * llama.cpp's /props `modalities.vision` (its /v1/models entry says nothing of images).
 * Unknown (no such field, no answer) is false: images are sent only when something says so.
 */
async function serverSaysImages(config: ProviderConfig): Promise<boolean> {
  const root = config.baseUrl.replace(/\/$/, "");
  const headers: Record<string, string> = config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {};
  const getJson = async (url: string): Promise<Record<string, unknown> | undefined> => {
    try {
      const response = await fetch(url, { headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
      return response.ok ? asRecord(await response.json()) : undefined;
    } catch {
      return undefined;
    }
  };
  const listing = await getJson(`${root}/models`);
  const entries = Array.isArray(listing?.data) ? listing.data.map(asRecord) : [];
  const entry =
    entries.find((candidate) => candidate?.id === config.model) ??
    (entries.length === 1 ? entries[0] : undefined);
  if (entry) {
    const architecture = asRecord(entry.architecture);
    if (
      listsImages(architecture?.input_modalities) ||
      listsImages(entry.input_modalities) ||
      listsImages(entry.capabilities) ||
      listsImages(entry.modalities)
    )
      return true;
  }
  if (config.kind !== "openai-compatible") return false;
  const props = await getJson(`${root.replace(/\/v1$/, "")}/props`);
  return asRecord(props?.modalities)?.vision === true;
}

/** Does the model take images? `on`/`off` as said; `auto` asks the preset, then the server. */
export async function resolveVision(
  config: ProviderConfig,
  setting: "on" | "off" | "auto",
): Promise<ProviderConfig> {
  if (setting !== "auto") return { ...config, vision: setting === "on" };
  if (VISION_PRESETS.has(config.id)) return { ...config, vision: true };
  if (config.kind === "bedrock" || config.kind === "azure-openai") return { ...config, vision: false };
  return { ...config, vision: await serverSaysImages(config) };
}

export function modelUnavailableMessage(config: ProviderConfig, detail: string): string {
  const local = config.id === DEFAULT_PROVIDER_ID;
  return [
    `No model answers at ${config.baseUrl} (${config.label}).`,
    local
      ? "Start one, e.g. `llama-server -m MODEL.gguf --port 8080 --jinja`, or point webbrain at another with --provider / --base-url / --model (see `webbrain run --help`)."
      : "Check --base-url and that the server is running, or pick another with --provider / --model.",
    detail ? `(${detail.split(". ")[0]})` : "",
  ]
    .filter(Boolean)
    .join(" ");
}
