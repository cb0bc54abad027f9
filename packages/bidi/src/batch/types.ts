/**
 * Types of the raw-frame batch engine.
 *
 * The engine is browser-agnostic: it sends caller-written WebDriver BiDi command
 * frames through a `BatchTransport`, in order, one at a time, and hands back the
 * verbatim response frames. It never interprets a result beyond following the
 * `{{id.path}}` references that the caller wrote.
 */

/** Any value that survives `JSON.parse(JSON.stringify(value))` unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A frame as the caller wrote it: `id` is optional, `params` defaults to `{}`. */
export interface BatchFrameInput {
  id?: number;
  method: string;
  params?: JsonObject;
}

/** A frame ready for the wire: id assigned, references resolved. */
export interface OutgoingFrame {
  id: number;
  method: string;
  params: JsonObject;
}

/**
 * A response frame exactly as the remote end sent it: `{type: "success", id,
 * result}` or `{type: "error", id, error, message, stacktrace?}`.
 */
export type ResponseFrame = JsonObject;

/** An event frame as the remote end sent it: `{type: "event", method, params}`. */
export interface EventFrame {
  method: string;
  params: JsonObject;
}

/**
 * The seam between the engine and a connection. `sendFrame` resolves with the
 * verbatim response (success or error frame); it rejects with
 * `FrameTimeoutError` when no answer came in time, `FrameAbortedError` when the
 * signal fired, and any other error when the connection failed.
 */
export interface BatchTransport {
  sendFrame(
    frame: OutgoingFrame,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<ResponseFrame>;
  /**
   * The JSON text of a response `sendFrame` resolved with, when the transport still has it from
   * the wire; must equal `JSON.stringify(response)`. Lets the engine skip serializing a large
   * response again. Undefined (or no method): the engine serializes it.
   */
  responseText?(response: ResponseFrame): string | undefined;
  /**
   * The UTF-8 byte length of `responseText(response)`, when the transport knows it from the wire;
   * must equal that text's size. Undefined (or no method): the engine counts the text.
   */
  responseBytes?(response: ResponseFrame): number | undefined;
  /** Registers an event listener; returns the function that removes it. */
  onEvent(listener: (event: EventFrame) => void): () => void;
}

/** One event as the engine keeps it. */
export interface RecordedEvent {
  /** Monotonic per history, starting at 1. */
  seq: number;
  /** Milliseconds since the epoch when the event arrived. */
  receivedAt: number;
  method: string;
  /** UTF-8 size of `{"method":..,"params":..}` as JSON. */
  bytes: number;
  /** Either the verbatim params, or a summary when the event is over the size limit. */
  params: JsonObject;
  summarized: boolean;
}

/** What the payload shows for one frame. */
export type FrameReport =
  | { id: number; method: string; status: "ok"; response: ResponseFrame }
  | { id: number; method: string; status: "ok"; spooled: SpoolReference }
  | { id: number; method: string; status: "error"; response: ResponseFrame }
  | { id: number | null; method: string; status: "error"; error: FrameFailure }
  | { id: number | null; method: string; status: "skipped"; reason: string };

/** A failure that the engine (not the remote end) decided. */
export interface FrameFailure {
  kind:
    | "invalid-frame"
    | "id-reused"
    | "reference"
    | "request-too-large"
    | "timeout"
    | "aborted"
    | "transport"
    | "spool"
    | "response-too-large"
    | "rejected";
  message: string;
}

/** Where a spooled result lies. The file is complete when this is returned. */
export interface SpoolReference {
  path: string;
  bytes: number;
  note: string;
}

export interface WaitRequest {
  /** One to eight event methods; a method listed twice needs two events. */
  methods: string[];
  /** Only events whose `params.context` equals this match. */
  context?: string;
  timeoutMs: number;
}

export type WaitReport =
  | { status: "matched"; matched: RecordedEvent[] }
  | { status: "timeout"; matched: RecordedEvent[]; missing: string[]; timeoutMs: number }
  | { status: "skipped"; reason: string; missing: string[] }
  | { status: "truncated"; bytes: number; note: string };

export interface BatchCounts {
  ok: number;
  failed: number;
  skipped: number;
  waitTimedOut: boolean;
}
