/**
 * Spec 000's streaming policy as an LlmClient wrapper: live text deltas only where a run may
 * stream (interactive Ask on the official OpenAI Responses route, while the user's kill switch
 * allows it), and a stream that breaks retried once without live text.
 *
 * Invariants:
 * - A run that may not stream never passes `onTextDelta` on: its text arrives whole, at the end.
 * - Deltas are shown before completion, but the message (tool calls, usage) is returned only
 *   whole, so no half-streamed tool call can run (PiAiClient's invariant).
 * - A transport or protocol interruption (connection dropped, unreadable stream) clears the
 *   partial text through `onStreamReset` before the retry, turns streaming off for the rest
 *   of the run and retries the same request once without deltas. HTTP/API errors, timeouts and
 *   aborts propagate as they are: no duplicate request.
 */
import type { AssistantMessage } from "@mariozechner/pi-ai";
import type { Mode } from "@webbrain/protocol";
import { AgentError } from "../errors.js";
import type { LlmCallOptions, LlmClient, LlmRequest } from "./provider-client.js";
import type { ProviderConfig } from "./provider-config.js";

/** What a run is, as far as streaming goes. */
export interface StreamingRunFacts {
  mode: Mode;
  /** A person started it from the panel (not a scheduled job). */
  interactive: boolean;
  /** A Continue of an earlier run. */
  continued: boolean;
  /** The Advanced kill switch: false sends new chats back to non-streaming. */
  streamingEnabled: boolean;
}

/** Spec 000: only an interactive Ask run on the official OpenAI Responses route streams. */
export function mayStream(config: ProviderConfig, run: StreamingRunFacts): boolean {
  return (
    run.streamingEnabled &&
    run.interactive &&
    !run.continued &&
    run.mode === "ask" &&
    config.kind === "openai" &&
    config.openaiApi === "responses"
  );
}

/** Failures of the transport or the stream itself, which a fresh non-streamed call may not hit. */
export function isStreamInterruption(error: unknown): boolean {
  if (!(error instanceof AgentError)) return false;
  if (error.kind === "provider_unreachable") return true;
  // pi-ai reports HTTP failures with their status first ("400 ..."); anything else under
  // provider_http is the stream breaking (cut JSON, missing events).
  return error.kind === "provider_http" && !/failed: \d{3}\b/.test(error.message);
}

export interface StreamingPolicyOptions {
  stream: boolean;
  /** Called before the retry when partial text was shown: the UI clears it. */
  onStreamReset?: () => void;
}

export class StreamingPolicyClient implements LlmClient {
  private streaming: boolean;

  constructor(
    private readonly inner: LlmClient,
    private readonly options: StreamingPolicyOptions,
  ) {
    this.streaming = options.stream;
  }

  get config(): ProviderConfig {
    return this.inner.config;
  }

  /** Whether the next call streams (false after an interruption, for the rest of the run). */
  get streamingNow(): boolean {
    return this.streaming;
  }

  async complete(request: LlmRequest, options: LlmCallOptions = {}): Promise<AssistantMessage> {
    const quiet: LlmCallOptions = options.signal ? { signal: options.signal } : {};
    const onTextDelta = options.onTextDelta;
    if (!this.streaming || !onTextDelta) return this.inner.complete(request, quiet);
    let shown = false;
    try {
      return await this.inner.complete(request, {
        ...quiet,
        onTextDelta: (delta) => {
          shown = true;
          onTextDelta(delta);
        },
      });
    } catch (error) {
      if (options.signal?.aborted || !isStreamInterruption(error)) throw error;
      this.streaming = false;
      if (shown) this.options.onStreamReset?.();
      return this.inner.complete(request, quiet);
    }
  }
}
