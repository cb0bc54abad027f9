/**
 * The batch engine's `BatchTransport` over a `@webbrain/bidi` BidiClient.
 *
 * `sendRaw` lets the caller keep its own frame id (the client uses its own
 * wire ids and maps the answer back), so the engine's never-reuse rule holds
 * for the ids the model sees, and the client's internal commands can never
 * collide with them. The answer's wire text (id swapped) and its size are handed
 * to the engine so it need not serialize or measure large answers again, and a success answer's
 * result is parsed only if a reference reads it. Timeouts and aborts become the engine's typed errors.
 */
import {
  BidiAbortError,
  type BidiClient,
  BidiTimeoutError,
  rawAnswerBytes,
  rawAnswerText,
  type SendOptions,
} from "@webbrain/bidi";
import {
  type BatchTransport,
  type EventFrame,
  FrameAbortedError,
  FrameTimeoutError,
  type JsonObject,
  type OutgoingFrame,
  type ResponseFrame,
} from "@webbrain/bidi/batch";

type FrameOptions = { timeoutMs: number; signal?: AbortSignal };

export function clientTransport(client: BidiClient): BatchTransport {
  // The engine passes one options object for all frames of a call: convert it once per call.
  let lastOptions: FrameOptions | undefined;
  let sendOptions: SendOptions = {};
  return {
    sendFrame(frame: OutgoingFrame, options: FrameOptions): Promise<ResponseFrame> {
      if (options !== lastOptions) {
        lastOptions = options;
        // The engine reports a failed frame as data and never shows a stack, so none is captured;
        // it passes answers on as their wire text and reads a result only for a reference.
        sendOptions = {
          timeoutMs: options.timeoutMs,
          signal: options.signal,
          captureStack: false,
          lazyResult: true,
        };
      }
      // No async wrapper: the answer passes straight through; only failures are mapped.
      return (client.sendRaw(frame, sendOptions) as Promise<ResponseFrame>).catch((error: unknown) => {
        if (error instanceof BidiTimeoutError) throw new FrameTimeoutError(frame.id, options.timeoutMs);
        if (error instanceof BidiAbortError) throw new FrameAbortedError(frame.id);
        throw error;
      });
    },
    responseText(response: ResponseFrame): string | undefined {
      return rawAnswerText(response);
    },
    responseBytes(response: ResponseFrame): number | undefined {
      return rawAnswerBytes(response);
    },
    onEvent(listener: (event: EventFrame) => void): () => void {
      return client.on("*", (_params, raw) => {
        listener({ method: raw.method, params: (raw.params ?? {}) as JsonObject });
      });
    },
  };
}
