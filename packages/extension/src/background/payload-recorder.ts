/**
 * Deep verbose (spec 000): a ring buffer of the last model requests and answers per tab, which
 * the sidebar dumps to the console on Shift+click. Recording happens only while the verbose
 * level is "deep", because each entry holds a whole conversation.
 *
 * Invariant: what is recorded is a copy taken at call time; the agent mutating its history
 * afterwards never changes a recorded payload.
 */
import type { LlmCallOptions, LlmClient, LlmRequest, ProviderConfig } from "@webbrain/agent";

type AssistantMessage = Awaited<ReturnType<LlmClient["complete"]>>;

/** A JSON copy: drops what cannot be shown (functions, symbols) instead of throwing. */
function snapshot<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export const MAX_PAYLOADS_PER_TAB = 20;

export interface RecordedPayload {
  at: number;
  provider: string;
  model: string;
  request: LlmRequest;
  response?: AssistantMessage;
  error?: string;
}

export class PayloadRecorder {
  private readonly byTab = new Map<string, RecordedPayload[]>();

  add(tabId: string, payload: RecordedPayload): void {
    const list = this.byTab.get(tabId) ?? [];
    list.push(payload);
    if (list.length > MAX_PAYLOADS_PER_TAB) list.splice(0, list.length - MAX_PAYLOADS_PER_TAB);
    this.byTab.set(tabId, list);
  }

  list(tabId: string): RecordedPayload[] {
    return [...(this.byTab.get(tabId) ?? [])];
  }

  forget(tabId: string): void {
    this.byTab.delete(tabId);
  }
}

/** An LlmClient that records each call into a PayloadRecorder, then defers to `inner`. */
export class RecordingLlmClient implements LlmClient {
  constructor(
    private readonly inner: LlmClient,
    private readonly recorder: PayloadRecorder,
    private readonly tabId: string,
    private readonly now: () => number = Date.now,
  ) {}

  get config(): ProviderConfig {
    return this.inner.config;
  }

  async complete(request: LlmRequest, options?: LlmCallOptions): Promise<AssistantMessage> {
    const payload: RecordedPayload = {
      at: this.now(),
      provider: this.inner.config.label,
      model: this.inner.config.model,
      request: snapshot(request),
    };
    this.recorder.add(this.tabId, payload);
    try {
      const response = await this.inner.complete(request, options);
      payload.response = snapshot(response);
      return response;
    } catch (error) {
      payload.error = error instanceof Error ? error.message : String(error);
      throw error;
    }
  }
}
