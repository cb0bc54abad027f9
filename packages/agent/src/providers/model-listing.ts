/**
 * The one "which models does this provider serve" check, for the add-on's Test connection and
 * model list and the runner's reachability check before a task.
 *
 * pi-ai (0.73.1) has no call that asks a server for its models, only its own catalogue of
 * hosted models, so the listing is a GET here: OpenAI-compatible servers (llama.cpp, Ollama,
 * LM Studio, vLLM, OpenAI, OpenRouter) answer `{baseUrl}/models`, Anthropic answers
 * `{baseUrl}/v1/models` with its own headers. Azure OpenAI and AWS Bedrock list models only on
 * their management APIs, so for them the check is a one-line generation through pi-ai
 * (`probeByGeneration`), which tests endpoint, key, deployment or region and model at once.
 *
 * Invariants:
 * - Every failure is a ModelListError whose `problem` says what went wrong (unreachable,
 *   timeout, key refused, another HTTP status, not JSON) and whose message names the URL and
 *   what to try; callers that speak another language render `problem` themselves.
 * - No cookies are sent (`credentials: "omit"`): a listing is never the page's or the user's
 *   session.
 * - `fetch` is injected so the logic is tested against a real local server.
 */

import type { AssistantMessage } from "@mariozechner/pi-ai";
import { AgentError } from "../errors.js";
import { classifyProviderError, PiAiClient } from "./provider-client.js";
import type { ProviderConfig } from "./provider-config.js";

export const MODEL_LIST_TIMEOUT_MS = 10_000;
const MAX_BODY_PREVIEW_CHARS = 200;
const ANTHROPIC_VERSION = "2023-06-01";
/** Few tokens: the probe only needs to know that the model answers. */
const PROBE_MAX_TOKENS = 16;

export type ModelListProblem =
  | "unreachable"
  | "timeout"
  | "key_refused"
  | "http_status"
  | "not_json"
  | "generation";

export class ModelListError extends Error {
  override name = "ModelListError";
  constructor(
    readonly problem: ModelListProblem,
    readonly url: string,
    message: string,
    readonly detail: { status?: number; preview?: string; timeoutMs?: number; cause?: AgentError } = {},
  ) {
    super(message);
  }
}

export interface ModelListing {
  /** Model ids the server lists (empty: it lists none, or it was tested by generation). */
  models: string[];
  /** Whether the configured model is among them (undefined: nothing to compare with). */
  modelListed: boolean | undefined;
  latencyMs: number;
  /** Tested by a one-line generation instead of a listing (Azure OpenAI, Bedrock). */
  answered?: true;
}

export interface ModelListOptions {
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

/** Providers whose models are checked by a tiny generation instead of a listing. */
export function testsByGeneration(config: ProviderConfig): boolean {
  return config.kind === "azure-openai" || config.kind === "bedrock";
}

export function modelsUrl(config: ProviderConfig): string {
  const base = config.baseUrl.replace(/\/+$/, "");
  if (config.kind === "anthropic") return base.endsWith("/v1") ? `${base}/models` : `${base}/v1/models`;
  return `${base}/models`;
}

function listingHeaders(config: ProviderConfig): Record<string, string> {
  if (!config.apiKey) return {};
  if (config.kind === "anthropic")
    return { "x-api-key": config.apiKey, "anthropic-version": ANTHROPIC_VERSION };
  return { authorization: `Bearer ${config.apiKey}` };
}

/** `{data: [{id}]}` (OpenAI, Anthropic) or `{models: [{id}]}`. */
function modelIds(body: unknown): string[] {
  const data =
    (body as { data?: unknown; models?: unknown } | null)?.data ??
    (body as { models?: unknown } | null)?.models;
  if (!Array.isArray(data)) return [];
  return data.flatMap((entry: unknown) => {
    const id = (entry as { id?: unknown } | null)?.id;
    return typeof id === "string" ? [id] : [];
  });
}

/** What a server answers at its models URL, or a ModelListError. */
export async function listModels(
  config: ProviderConfig,
  options: ModelListOptions = {},
): Promise<ModelListing> {
  const now = options.now ?? (() => performance.now());
  if (testsByGeneration(config)) return probeByGeneration(config, options);
  const timeoutMs = options.timeoutMs ?? MODEL_LIST_TIMEOUT_MS;
  const url = modelsUrl(config);
  const started = now();
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, {
      headers: listingHeaders(config),
      signal: AbortSignal.timeout(timeoutMs),
      credentials: "omit",
    });
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    if (name === "TimeoutError" || name === "AbortError") {
      throw new ModelListError(
        "timeout",
        url,
        `No answer from ${url} within ${timeoutMs / 1000} s. Check that the server is running and the URL is right.`,
        { timeoutMs },
      );
    }
    throw new ModelListError(
      "unreachable",
      url,
      `Could not reach ${url}. Check that the server is running and that the base URL (including /v1) is right.`,
    );
  }
  const latencyMs = Math.round(now() - started);
  const text = await response.text().catch(() => "");
  if (response.status === 401 || response.status === 403) {
    throw new ModelListError(
      "key_refused",
      url,
      `${url} refused the API key (HTTP ${response.status}). Check the key in this provider's settings.`,
      { status: response.status },
    );
  }
  if (!response.ok) {
    const preview = text.slice(0, MAX_BODY_PREVIEW_CHARS).trim();
    throw new ModelListError(
      "http_status",
      url,
      `${url} answered HTTP ${response.status}${preview ? `: ${preview}` : ""}. Check the base URL and the protocol.`,
      { status: response.status, ...(preview ? { preview } : {}) },
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ModelListError(
      "not_json",
      url,
      `${url} answered, but not with JSON. This does not look like a ${config.kind} server: check the base URL.`,
    );
  }
  const models = modelIds(body);
  return { models, modelListed: models.length === 0 ? undefined : models.includes(config.model), latencyMs };
}

/** A one-line generation through pi-ai, bounded by the listing's timeout. */
export async function probeByGeneration(
  config: ProviderConfig,
  options: ModelListOptions = {},
): Promise<ModelListing> {
  const now = options.now ?? (() => performance.now());
  const timeoutMs = Math.min(
    config.timeoutMs ?? MODEL_LIST_TIMEOUT_MS,
    options.timeoutMs ?? MODEL_LIST_TIMEOUT_MS,
  );
  const started = now();
  try {
    await new PiAiClient({ ...config, maxTokens: PROBE_MAX_TOKENS, timeoutMs }).complete({
      systemPrompt: "This is a connection test. Answer with one word.",
      messages: [{ role: "user", content: "Say OK.", timestamp: Date.now() }],
      tools: [],
    });
  } catch (error) {
    const cause = error instanceof AgentError ? error : undefined;
    const message = error instanceof Error ? error.message : String(error);
    throw new ModelListError("generation", config.baseUrl, message, cause ? { cause } : {});
  }
  return { models: [], modelListed: undefined, latencyMs: Math.round(now() - started), answered: true };
}

export interface ConnectionReport {
  ok: boolean;
  /** Model ids the server lists (OpenAI-compatible and Anthropic endpoints). */
  models: string[];
  error?: AgentError;
}

/**
 * `listModels` as a typed AgentError the agent's callers already handle (the runner's check
 * before a task: unreachable and timeout stop it, a refused key or a missing /models may not).
 * Never throws.
 */
export async function testConnection(
  config: ProviderConfig,
  timeoutMs = MODEL_LIST_TIMEOUT_MS,
): Promise<ConnectionReport> {
  try {
    return { ok: true, models: (await listModels(config, { timeoutMs })).models };
  } catch (error) {
    if (!(error instanceof ModelListError)) throw error;
    if (error.detail.cause) return { ok: false, models: [], error: error.detail.cause };
    const said: Record<ModelListProblem, string> = {
      unreachable: `Connection error. ${error.message}`,
      timeout: `Request timed out. ${error.message}`,
      key_refused: error.message,
      http_status: error.message,
      not_json: error.message,
      generation: error.message,
    };
    const message = { stopReason: "error", errorMessage: said[error.problem] } as AssistantMessage;
    return { ok: false, models: [], error: classifyProviderError(config, message) };
  }
}
