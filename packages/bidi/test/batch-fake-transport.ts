/**
 * An in-memory BatchTransport for the engine's unit tests: answers each frame
 * with what a handler returns, records what was sent and in which order, and
 * lets a test emit events at any moment. Not a browser: tests that need what
 * Firefox decides live in the Pi package's end-to-end tests.
 */
import { FrameAbortedError, FrameTimeoutError } from "../src/batch/errors.js";
import type { BatchTransport, EventFrame, OutgoingFrame, ResponseFrame } from "../src/batch/types.js";

export type FrameHandler = (
  frame: OutgoingFrame,
  transport: FakeTransport,
) => ResponseFrame | "hang" | Promise<ResponseFrame>;

export class FakeTransport implements BatchTransport {
  readonly sent: OutgoingFrame[] = [];
  /** For each frame: how many frames were in flight when it was sent. */
  readonly inFlightAtSend: number[] = [];
  #inFlight = 0;
  readonly #listeners = new Set<(event: EventFrame) => void>();

  constructor(private readonly handler: FrameHandler = (frame) => success(frame, {})) {}

  async sendFrame(
    frame: OutgoingFrame,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<ResponseFrame> {
    this.sent.push(structuredClone(frame));
    this.inFlightAtSend.push(this.#inFlight);
    this.#inFlight += 1;
    try {
      const answer = this.handler(frame, this);
      if (answer === "hang") {
        return await new Promise<ResponseFrame>((_, reject) => {
          const timer = setTimeout(
            () => reject(new FrameTimeoutError(frame.id, options.timeoutMs)),
            options.timeoutMs,
          );
          options.signal?.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new FrameAbortedError(frame.id));
          });
        });
      }
      return await answer;
    } finally {
      this.#inFlight -= 1;
    }
  }

  onEvent(listener: (event: EventFrame) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(method: string, params: Record<string, unknown>): void {
    for (const listener of this.#listeners) listener({ method, params: params as EventFrame["params"] });
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}

export function success(frame: OutgoingFrame, result: unknown): ResponseFrame {
  return { type: "success", id: frame.id, result } as ResponseFrame;
}

export function errorFrame(frame: OutgoingFrame, error: string, message: string): ResponseFrame {
  return { type: "error", id: frame.id, error, message };
}
