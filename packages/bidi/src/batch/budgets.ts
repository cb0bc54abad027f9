/**
 * Size and count limits of one batch call, in one place.
 *
 * Invariants the engine keeps with these numbers:
 * - no request frame over MAX_REQUEST_FRAME_BYTES is sent;
 * - no inline response over MAX_INLINE_RESPONSE_BYTES, and all inline responses
 *   of one call together stay within MAX_INLINE_RESPONSES_BYTES;
 * - the whole payload handed to the model stays within MAX_PAYLOAD_BYTES;
 * - a session never spools more than MAX_SPOOL_BYTES.
 * All sizes are UTF-8 bytes of the JSON text.
 */

const KIB = 1024;
const MIB = 1024 * KIB;

export const MAX_FRAMES_PER_BATCH = 64;
export const MAX_WAIT_METHODS = 8;
export const MAX_REQUEST_FRAME_BYTES = 1 * MIB;
export const MAX_INLINE_RESPONSE_BYTES = 256 * KIB;
export const MAX_INLINE_RESPONSES_BYTES = 896 * KIB;
export const MAX_PAYLOAD_BYTES = 1 * MIB;
export const MAX_SPOOL_BYTES = 32 * MIB;
export const EVENT_HISTORY_ENTRIES = 200;
export const MAX_EVENT_BYTES = 8 * KIB;
/** Session metadata is a handful of fields; anything bigger is a bug or hostile, so it is cut. */
export const MAX_SESSION_METADATA_BYTES = 16 * KIB;
/** Eight summarized events plus their envelope fit well within this. */
export const MAX_WAIT_SECTION_BYTES = 96 * KIB;
/** An error response cut for size keeps this much of its message. */
export const TRUNCATED_MESSAGE_CHARS = 2 * KIB;

export const DEFAULT_FRAME_TIMEOUT_MS = 30_000;
export const DEFAULT_WAIT_TIMEOUT_MS = 10_000;
export const MAX_TIMEOUT_MS = 300_000;

/** UTF-8 byte length of a string, without allocating a buffer. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** UTF-8 byte length of a value's JSON text. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? "null");
}
