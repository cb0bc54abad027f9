/**
 * The JSON text one batch call hands to the model, kept within MAX_PAYLOAD_BYTES.
 *
 * Order of sacrifice when the parts do not fit: events go first, oldest first;
 * then an oversized wait section and oversized session metadata are replaced by
 * truncation markers. Frame reports are never cut here: the engine already held
 * inline responses to MAX_INLINE_RESPONSES_BYTES and spooled the rest, and
 * every message it writes itself is short, so frames always fit.
 */

import {
  MAX_PAYLOAD_BYTES,
  MAX_SESSION_METADATA_BYTES,
  MAX_WAIT_SECTION_BYTES,
  utf8Bytes,
} from "./budgets.js";
import type { FrameReport, JsonObject, RecordedEvent, WaitReport } from "./types.js";

export interface TruncationMarker {
  truncated: true;
  bytes: number;
  note: string;
}

export interface BatchPayload {
  session: JsonObject | TruncationMarker;
  frames: FrameReport[];
  wait?: WaitReport;
  events: RecordedEvent[];
  eventsOmitted?: { droppedForSize: number; lostToHistoryLimit: number; note: string };
}

export interface PayloadParts {
  session: JsonObject;
  /** `JSON.stringify(session)`, when the caller made it already. */
  sessionText?: string;
  frames: FrameReport[];
  /** `JSON.stringify` of each frame report, when the caller has it already. */
  frameTexts?: string[];
  /** UTF-8 size of each of `frameTexts`, when the caller knows it; only read with `frameTexts`. */
  frameBytes?: number[];
  wait?: WaitReport;
  /** Oldest first. */
  events: RecordedEvent[];
  /** Events that fell out of the history before this call could show them. */
  lostEvents: number;
}

export interface AssembledPayload {
  payload: BatchPayload;
  text: string;
  bytes: number;
  eventsDropped: number;
}

function marker(bytes: number, what: string, limit: number): TruncationMarker {
  return {
    truncated: true,
    bytes,
    note: `${what} of ${bytes} bytes exceeded ${limit} bytes and was left out`,
  };
}

/**
 * `texts.join(separator)`, built by concatenation: V8 keeps the result as a rope over the parts,
 * so the inline responses (a screenshot is ~40 KB) are not copied into a new string here. The
 * first reader of the payload flattens it once; `join` would copy it now, and that reader's
 * serialization would copy it again.
 */
function concatenated(texts: readonly string[], separator: string): string {
  let out = "";
  for (let index = 0; index < texts.length; index += 1) {
    out = index === 0 ? (texts[index] as string) : `${out}${separator}${texts[index]}`;
  }
  return out;
}

/** Room kept for the `eventsOmitted` note, whose numbers are not known up front. */
const OMITTED_NOTE_RESERVE_BYTES = 256;

export function assemblePayload(parts: PayloadParts, maxBytes: number = MAX_PAYLOAD_BYTES): AssembledPayload {
  const sessionText = parts.sessionText ?? JSON.stringify(parts.session);
  let sessionBytes = utf8Bytes(sessionText);
  let session: JsonObject | TruncationMarker = parts.session;
  let sessionPart = sessionText;
  if (sessionBytes > MAX_SESSION_METADATA_BYTES) {
    session = marker(sessionBytes, "session metadata", MAX_SESSION_METADATA_BYTES);
    sessionPart = JSON.stringify(session);
    sessionBytes = utf8Bytes(sessionPart);
  }
  let wait: WaitReport | undefined = parts.wait;
  // Serialized once: the same text is measured and then placed in the payload.
  let waitText = wait ? JSON.stringify(wait) : "";
  let waitBytes = utf8Bytes(waitText);
  if (wait && waitBytes > MAX_WAIT_SECTION_BYTES) {
    wait = {
      status: "truncated",
      bytes: waitBytes,
      note: `wait report exceeded ${MAX_WAIT_SECTION_BYTES} bytes`,
    };
    waitText = JSON.stringify(wait);
    waitBytes = utf8Bytes(waitText);
  }
  const payload: BatchPayload = { session, frames: parts.frames, events: [] };
  if (wait) payload.wait = wait;

  // The text is built from parts so that large inline responses, already
  // serialized (or taken from the wire) once by the engine, are not serialized
  // again; its size is the sum of the parts' sizes, so the whole text is never
  // flattened or measured here (the punctuation is ASCII: one byte a char).
  const frameTexts = parts.frameTexts ?? parts.frames.map((frame) => JSON.stringify(frame));
  const framesText = `[${concatenated(frameTexts, ",")}]`;
  // "[", "]" and a comma between two frames are one byte each.
  const framesBytes =
    parts.frameTexts && parts.frameBytes
      ? parts.frameBytes.reduce((sum, bytes) => sum + bytes, 0) + Math.max(frameTexts.length - 1, 0) + 2
      : utf8Bytes(framesText);
  const waitPart = wait ? `,"wait":${waitText}` : "";
  const head = `{"session":${sessionPart},"frames":${framesText}${waitPart},"events":`;
  const headBytes =
    sessionBytes +
    framesBytes +
    (wait ? waitBytes + ',"wait":'.length : 0) +
    '{"session":,"frames":,"events":'.length;
  let used = headBytes + OMITTED_NOTE_RESERVE_BYTES;

  // Newest events are worth most to a model that just acted: keep from the end.
  const kept: RecordedEvent[] = [];
  const keptTexts: string[] = [];
  let eventsBytes = 0;
  for (let index = parts.events.length - 1; index >= 0; index -= 1) {
    const event = parts.events[index]!;
    const eventText = JSON.stringify(event);
    const cost = utf8Bytes(eventText) + 1;
    if (used + cost > maxBytes) break;
    used += cost;
    eventsBytes += cost;
    kept.push(event);
    keptTexts.push(eventText);
  }
  kept.reverse();
  keptTexts.reverse();
  const dropped = parts.events.length - kept.length;
  payload.events = kept;
  let tail = "}";
  if (dropped > 0 || parts.lostEvents > 0) {
    payload.eventsOmitted = {
      droppedForSize: dropped,
      lostToHistoryLimit: parts.lostEvents,
      note: "oldest events were left out to keep the payload within its size limit or the 200-entry history",
    };
    tail = `,"eventsOmitted":${JSON.stringify(payload.eventsOmitted)}}`;
  }
  const text = `${head}[${concatenated(keptTexts, ",")}]${tail}`;
  // Each kept event cost its bytes plus one for a comma; n events have n - 1 commas, plus "[" and "]".
  const eventsArrayBytes = eventsBytes + (kept.length > 0 ? 1 : 2);
  return { payload, text, bytes: headBytes + eventsArrayBytes + utf8Bytes(tail), eventsDropped: dropped };
}
