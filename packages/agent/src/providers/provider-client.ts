/**
 * LlmClient: one model call, through pi-ai, with a request timeout, abort, live text deltas,
 * and failures turned into typed AgentErrors (unreachable, auth with the Ollama-origin hint,
 * timeout, context overflow, other HTTP).
 *
 * Invariants: `complete` either resolves a finished assistant message (stopReason stop,
 * length or toolUse) or throws an AgentError; an incomplete message is never returned, so no
 * half-streamed tool call can run.
 */
import {
  type AssistantMessage,
  type Context,
  isContextOverflow,
  type Message,
  stream,
  type Tool,
} from "@mariozechner/pi-ai";
import { AgentError, type ProviderErrorDetail } from "../errors.js";
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  isLocalEndpoint,
  type ProviderConfig,
  toPiModel,
} from "./provider-config.js";

export interface LlmRequest {
  systemPrompt: string;
  messages: Message[];
  tools: Tool[];
}

export interface LlmCallOptions {
  signal?: AbortSignal;
  /** Text as it streams in, for a live UI. */
  onTextDelta?: (delta: string) => void;
}

export interface LlmClient {
  readonly config: ProviderConfig;
  complete(request: LlmRequest, options?: LlmCallOptions): Promise<AssistantMessage>;
}

const OLLAMA_ORIGIN_HINT =
  " If this is Ollama, it refuses requests from browser add-ons unless their origin is allowed: set OLLAMA_ORIGINS=moz-extension://* in Ollama's environment and restart it.";

/** Turn pi-ai's error text into the typed error a user can act on. */
export function classifyProviderError(config: ProviderConfig, message: AssistantMessage): AgentError {
  const text = message.errorMessage ?? "unknown error";
  const where = `${config.label} (${config.baseUrl || config.kind}, model ${config.model})`;
  const detail = providerDetail(config, text);
  if (isContextOverflow(message, config.contextWindow)) {
    return new AgentError(
      "context_overflow",
      `${where} says the conversation is longer than the model's context window: ${text}. Older steps will be summarized; if this persists, start a new conversation or raise the context size of the server.`,
      { provider: detail },
    );
  }
  // The AWS SDK names a refused token by its exception type, without the status in the text.
  const status =
    /\b(401|403)\b/.exec(text)?.[1] ??
    (/\b(AccessDeniedException|UnrecognizedClientException|ExpiredTokenException)\b/.test(text)
      ? "403"
      : undefined);
  if (status) {
    const ollama =
      config.id === "ollama" ||
      /:11434\b/.test(config.baseUrl) ||
      (status === "403" && isLocalEndpoint(config));
    return new AgentError(
      "provider_auth",
      `${where} refused the request with HTTP ${status}: ${text}. Check the API key in the provider settings.${ollama ? OLLAMA_ORIGIN_HINT : ""}`,
      { provider: { ...detail, status, ollamaOrigin: ollama } },
    );
  }
  if (
    /connection error|fetch failed|ECONNREFUSED|ENOTFOUND|network ?error|Failed to fetch|NetworkError/i.test(
      text,
    )
  ) {
    return new AgentError(
      "provider_unreachable",
      `Could not reach ${where}: ${withoutFinalStop(text)}. Is the server running and the URL right? A local server must also allow the add-on's origin (CORS).`,
      { provider: { ...detail, cause: withoutFinalStop(text) } },
    );
  }
  if (/timed? ?out|timeout/i.test(text)) {
    return timeoutError(config);
  }
  return new AgentError(
    "provider_http",
    `${where} failed: ${text}. Try again; if it repeats, check the server's log.`,
    { provider: detail },
  );
}

function providerDetail(config: ProviderConfig, cause?: string): ProviderErrorDetail {
  return {
    provider: config.label,
    endpoint: config.baseUrl || config.kind,
    model: config.model,
    ...(cause !== undefined ? { cause } : {}),
  };
}

function timeoutError(config: ProviderConfig): AgentError {
  const seconds = (config.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) / 1000;
  return new AgentError(
    "provider_timeout",
    `${config.label} (model ${config.model}) did not answer within ${seconds} s. The server may be overloaded or the model too slow for this prompt; raise the timeout in the provider settings or use a smaller model.`,
    { provider: { ...providerDetail(config), timeoutSeconds: seconds } },
  );
}

export function abortedError(): AgentError {
  return new AgentError("aborted", "Stopped by the user.");
}

/** The production client: pi-ai's `stream` for this provider config. */
export class PiAiClient implements LlmClient {
  constructor(readonly config: ProviderConfig) {
    toPiModel(config); // validate now, so a bad config fails before the first task
  }

  async complete(request: LlmRequest, options: LlmCallOptions = {}): Promise<AssistantMessage> {
    const { model, options: base } = toPiModel(this.config);
    const timeout = new AbortController();
    const timeoutMs = this.config.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
    const context: Context = {
      systemPrompt: request.systemPrompt,
      messages: request.messages,
      tools: request.tools,
    };
    try {
      options.signal?.throwIfAborted();
      const events = stream(model, context, { ...base, signal });
      for await (const event of events) {
        if (event.type === "text_delta") options.onTextDelta?.(event.delta);
      }
      const message = await events.result();
      if (message.stopReason === "aborted" || message.stopReason === "error") {
        if (options.signal?.aborted) throw abortedError();
        if (timeout.signal.aborted) throw timeoutError(this.config);
        throw classifyProviderError(this.config, message);
      }
      return message;
    } catch (error) {
      if (error instanceof AgentError) throw error;
      if (options.signal?.aborted) throw abortedError();
      if (timeout.signal.aborted) throw timeoutError(this.config);
      const cause = (error as Error).message;
      throw new AgentError("provider_http", `${this.config.label} call failed: ${cause}`, {
        provider: providerDetail(this.config, cause),
      });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Messages from the SDKs often end with a full stop; ours continue the sentence after them. */
function withoutFinalStop(text: string): string {
  return text.replace(/[.\s]+$/, "");
}

export * from "./provider-streaming.js";
