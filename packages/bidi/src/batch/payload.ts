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
  jsonBytes,
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
  frames: FrameReport[];
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

/** Room kept for the `eventsOmitted` note, whose numbers are not known up front. */
const OMITTED_NOTE_RESERVE_BYTES = 256;

export function assemblePayload(parts: PayloadParts, maxBytes: number = MAX_PAYLOAD_BYTES): AssembledPayload {
  const sessionBytes = jsonBytes(parts.session);
  const session =
    sessionBytes > MAX_SESSION_METADATA_BYTES
      ? marker(sessionBytes, "session metadata", MAX_SESSION_METADATA_BYTES)
      : parts.session;
  let wait: WaitReport | undefined = parts.wait;
  if (wait) {
    const waitBytes = jsonBytes(wait);
    if (waitBytes > MAX_WAIT_SECTION_BYTES) {
      wait = {
        status: "truncated",
        bytes: waitBytes,
        note: `wait report exceeded ${MAX_WAIT_SECTION_BYTES} bytes`,
      };
    }
  }

  const base: BatchPayload = { session, frames: parts.frames, events: [] };
  if (wait) base.wait = wait;
  let used = jsonBytes(base) + OMITTED_NOTE_RESERVE_BYTES;

  // Newest events are worth most to a model that just acted: keep from the end.
  const kept: RecordedEvent[] = [];
  for (let index = parts.events.length - 1; index >= 0; index -= 1) {
    const event = parts.events[index]!;
    const cost = jsonBytes(event) + 1;
    if (used + cost > maxBytes) break;
    used += cost;
    kept.push(event);
  }
  kept.reverse();
  const dropped = parts.events.length - kept.length;
  base.events = kept;
  if (dropped > 0 || parts.lostEvents > 0) {
    base.eventsOmitted = {
      droppedForSize: dropped,
      lostToHistoryLimit: parts.lostEvents,
      note: "oldest events were left out to keep the payload within its size limit or the 200-entry history",
    };
  }
  const text = JSON.stringify(base);
  return { payload: base, text, bytes: utf8Bytes(text), eventsDropped: dropped };
}
