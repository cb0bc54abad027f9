/**
 * An LlmClient decorator that adds up token usage and tells a listener about each model call,
 * for `run --json` (tokens) and `--trace` (one record per call). The wrapped client does the work.
 */
import type { LlmCallOptions, LlmClient, LlmRequest, ProviderConfig } from "@webbrain/agent";

export interface TokenUsage {
  input: number;
  output: number;
}

export type ModelCallListener = (call: { ms: number; usage: TokenUsage; stopReason: string }) => void;

export class CountingLlm implements LlmClient {
  readonly usage: TokenUsage = { input: 0, output: 0 };
  calls = 0;
  readonly #inner: LlmClient;
  readonly #onCall: ModelCallListener | undefined;

  constructor(inner: LlmClient, onCall?: ModelCallListener) {
    this.#inner = inner;
    this.#onCall = onCall;
  }

  get config(): ProviderConfig {
    return this.#inner.config;
  }

  async complete(request: LlmRequest, options?: LlmCallOptions): ReturnType<LlmClient["complete"]> {
    const started = Date.now();
    const message = await this.#inner.complete(request, options);
    this.calls++;
    const usage = { input: message.usage?.input ?? 0, output: message.usage?.output ?? 0 };
    this.usage.input += usage.input;
    this.usage.output += usage.output;
    this.#onCall?.({ ms: Date.now() - started, usage, stopReason: message.stopReason });
    return message;
  }
}
