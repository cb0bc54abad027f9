/**
 * The batch engine's `BatchTransport` over a BidiClient.
 *
 * The client uses its own wire ids; the answer is put back under the frame's id (see
 * wire-answers.ts), so the engine's never-reuse rule holds for the ids the model sees and the
 * client's own commands can never collide with them. The answer's wire text and size go to the
 * engine so it need not serialize or measure large answers again, and a success answer's result
 * is parsed only if a reference reads it. Timeouts and aborts become the engine's typed errors.
 */
import type { BidiClient, SendOptions } from "../client.js";
import { BidiAbortError, BidiTimeoutError } from "../errors.js";
import { FrameAbortedError, FrameTimeoutError } from "./errors.js";
import type { BatchTransport, EventFrame, JsonObject, OutgoingFrame, ResponseFrame } from "./types.js";
import {
  answerWireBytes,
  answerWireText,
  asCallerAnswer,
  firefoxAnswerReader,
  type WireAnswer,
} from "./wire-answers.js";

type FrameOptions = { timeoutMs: number; signal?: AbortSignal };

/** A command frame whose answer comes back whole, success or error, under `id` when given. */
export interface RelayedFrame {
  id?: number;
  method: string;
  params: unknown;
}

/**
 * Sends `frame` and resolves with Firefox's answer frame (success or error) under the frame's id.
 * Rejects only when no answer can come: timeout, abort, or closed connection (the client's
 * errors). For relays and tests that speak raw frames; the batch engine uses `clientTransport`.
 */
export async function sendAnswerFrame(
  client: BidiClient,
  frame: RelayedFrame,
  opts: SendOptions = {},
): Promise<ResponseFrame> {
  const wire = (await client.sendUntyped(frame.method, frame.params, {
    ...opts,
    answerReader: firefoxAnswerReader,
  })) as WireAnswer;
  return asCallerAnswer(wire, frame.id) as ResponseFrame;
}

export function clientTransport(client: BidiClient): BatchTransport {
  // The engine passes one options object for all frames of a call: convert it once per call.
  let lastOptions: FrameOptions | undefined;
  let sendOptions: SendOptions = {};
  return {
    sendFrame(frame: OutgoingFrame, options: FrameOptions): Promise<ResponseFrame> {
      if (options !== lastOptions) {
        lastOptions = options;
        // The engine reports a failed frame as data and never shows a stack, so none is captured.
        sendOptions = {
          timeoutMs: options.timeoutMs,
          signal: options.signal,
          captureStack: false,
          answerReader: firefoxAnswerReader,
        };
      }
      // No async wrapper: one then for the id swap; only failures are mapped.
      return client.sendUntyped(frame.method, frame.params, sendOptions).then(
        (wire) => asCallerAnswer(wire as WireAnswer, frame.id) as ResponseFrame,
        (error: unknown) => {
          if (error instanceof BidiTimeoutError) throw new FrameTimeoutError(frame.id, options.timeoutMs);
          if (error instanceof BidiAbortError) throw new FrameAbortedError(frame.id);
          throw error;
        },
      );
    },
    responseText(response: ResponseFrame): string | undefined {
      return answerWireText(response);
    },
    responseBytes(response: ResponseFrame): number | undefined {
      return answerWireBytes(response);
    },
    onEvent(listener: (event: EventFrame) => void): () => void {
      return client.on("*", (_params, raw) => {
        listener({ method: raw.method, params: (raw.params ?? {}) as JsonObject });
      });
    },
  };
}
