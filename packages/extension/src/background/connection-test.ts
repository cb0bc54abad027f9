/**
 * "Test connection" for a provider: lists the server's models and checks the configured one.
 *
 * OpenAI-compatible servers (llama.cpp, Ollama, LM Studio, OpenAI, OpenRouter) answer
 * `GET {baseUrl}/models`; Anthropic answers `GET {baseUrl}/v1/models` with its own headers.
 * Azure OpenAI and AWS Bedrock list models only on their management APIs, so for them the test
 * is a one-line generation through pi-ai (`probeByGeneration`), which checks endpoint, key,
 * deployment or region and model at once. Every failure becomes a ConnectionTestError whose
 * message names the URL, what went wrong and what to try. `fetch` is injected so the logic is
 * tested against a real local server.
 */
import { AgentError, PiAiClient } from "@webbrain/agent";
import { t } from "../shared/i18n.js";
import type { ConnectionTestResult } from "../shared/messages.js";
import type { ProviderConfig } from "../shared/settings.js";
import { toAgentProvider } from "./provider-mapping.js";

export const CONNECTION_TEST_TIMEOUT_MS = 10_000;
const MAX_BODY_PREVIEW_CHARS = 200;
const ANTHROPIC_VERSION = "2023-06-01";

export class ConnectionTestError extends Error {
  override name = "ConnectionTestError";
}

export function modelsUrl(provider: ProviderConfig): string {
  const base = provider.baseUrl.replace(/\/+$/, "");
  if (provider.api === "anthropic-messages") {
    return base.endsWith("/v1") ? `${base}/models` : `${base}/v1/models`;
  }
  return `${base}/models`;
}

function authHeaders(provider: ProviderConfig): Record<string, string> {
  if (provider.apiKey === "") return {};
  if (provider.api === "anthropic-messages") {
    return { "x-api-key": provider.apiKey, "anthropic-version": ANTHROPIC_VERSION };
  }
  return { authorization: `Bearer ${provider.apiKey}` };
}

function modelIds(body: unknown): string[] {
  const data =
    (body as { data?: unknown; models?: unknown } | null)?.data ?? (body as { models?: unknown })?.models;
  if (!Array.isArray(data)) return [];
  return data.flatMap((entry: unknown) => {
    const id = (entry as { id?: unknown; name?: unknown; model?: unknown } | null)?.id;
    return typeof id === "string" ? [id] : [];
  });
}

/** Few tokens: the probe only needs to know that the model answers. */
const PROBE_MAX_TOKENS = 16;

/** Protocols tested by a tiny generation instead of a model listing. */
export function testsByGeneration(provider: ProviderConfig): boolean {
  return provider.api === "azure-openai-responses" || provider.api === "bedrock-converse-stream";
}

/** A one-line generation through pi-ai, bounded by the connection test's timeout. */
export async function probeByGeneration(
  provider: ProviderConfig,
  now: () => number = () => performance.now(),
): Promise<ConnectionTestResult> {
  const config = {
    ...toAgentProvider(provider),
    maxTokens: PROBE_MAX_TOKENS,
    timeoutMs: Math.min(provider.timeoutSeconds * 1000, CONNECTION_TEST_TIMEOUT_MS),
  };
  const started = now();
  try {
    const client = new PiAiClient(config);
    await client.complete({
      systemPrompt: "This is a connection test. Answer with one word.",
      messages: [{ role: "user", content: "Say OK.", timestamp: Date.now() }],
      tools: [],
    });
  } catch (error) {
    const message = error instanceof AgentError || error instanceof Error ? error.message : String(error);
    throw new ConnectionTestError(message);
  }
  return { models: [], modelListed: undefined, latencyMs: Math.round(now() - started), answered: true };
}

export async function testProviderConnection(
  provider: ProviderConfig,
  fetchImpl: typeof fetch = fetch,
  now: () => number = () => performance.now(),
): Promise<ConnectionTestResult> {
  if (testsByGeneration(provider)) return probeByGeneration(provider, now);
  const url = modelsUrl(provider);
  const started = now();
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: authHeaders(provider),
      signal: AbortSignal.timeout(CONNECTION_TEST_TIMEOUT_MS),
      credentials: "omit",
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    throw new ConnectionTestError(
      timedOut ? t("testTimedOut", url, CONNECTION_TEST_TIMEOUT_MS / 1000) : t("testUnreachable", url),
    );
  }
  const latencyMs = Math.round(now() - started);
  const text = await response.text();
  if (response.status === 401 || response.status === 403) {
    throw new ConnectionTestError(t("testKeyRefused", url, response.status));
  }
  if (!response.ok) {
    const preview = text.slice(0, MAX_BODY_PREVIEW_CHARS).trim();
    throw new ConnectionTestError(
      t("testHttpStatus", url, `${response.status}${preview ? `: ${preview}` : ""}`),
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ConnectionTestError(t("testNotJson", url, provider.api));
  }
  const models = modelIds(body);
  return {
    models,
    modelListed: models.length === 0 ? undefined : models.includes(provider.model),
    latencyMs,
  };
}
