/**
 * Answers kept as Firefox wrote them, for the batch engine's transport over a BidiClient.
 *
 * The engine passes answers on as text and reads few results, so a screenshot's megabytes
 * should be neither parsed on arrival nor serialized again. `firefoxAnswerReader` is the
 * client's `AnswerReader`: it names a success answer by the id at the start of its text (Firefox
 * writes `{"type":"success","id":N,...}` with JSON.stringify) and leaves it unparsed.
 * `asCallerAnswer` then puts the caller's id in place of the wire id and keeps the answer's text
 * (`answerWireText`) and its UTF-8 size (`answerWireBytes`), so that text equals
 * `JSON.stringify(answer)` while nobody mutates the answer.
 */
import type { AnswerFrame, AnswerReader } from "../client.js";

/** An answer off the wire: its text and size, and the parsed frame unless it was left unparsed. */
export interface WireAnswer {
  text: string;
  bytes: number | undefined;
  frame: AnswerFrame | undefined;
}

/** How Firefox starts every success answer (WebDriverBiDiConnection.sendResult). */
const SUCCESS_PREFIX = '{"type":"success","id":';
const CLOSING_BRACE = 0x7d;
const COMMA = 0x2c;
/** Ids are safe integers: at most 16 digits. */
const MAX_ID_DIGITS = 16;

function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Where the id of a success answer in Firefox's layout ends, or -1 when the text is not one. */
function successIdEnd(text: string): number {
  if (!text.startsWith(SUCCESS_PREFIX) || text.charCodeAt(text.length - 1) !== CLOSING_BRACE) return -1;
  let end = SUCCESS_PREFIX.length;
  while (end < text.length && isAsciiDigit(text.charCodeAt(end))) end += 1;
  if (end === SUCCESS_PREFIX.length || end > SUCCESS_PREFIX.length + MAX_ID_DIGITS) return -1;
  return text.charCodeAt(end) === COMMA ? end : -1;
}

/** Reads success answers unparsed and everything else parsed, as `WireAnswer`s. */
export const firefoxAnswerReader: AnswerReader = {
  peekAnswerId(text: string): number | undefined {
    const end = successIdEnd(text);
    return end === -1 ? undefined : Number(text.slice(SUCCESS_PREFIX.length, end));
  },
  readAnswer(text: string, bytes: number | undefined, frame: AnswerFrame | undefined): WireAnswer {
    return { text, bytes, frame };
  },
};

/** The wire text of an answer `asCallerAnswer` built and, when the transport reported it, its size. */
interface KeptWire {
  text: string;
  bytes: number | undefined;
}

/**
 * Wire text of answers, keyed by the answer object. Weak, so an answer nobody keeps does not keep
 * its text; kept off the object so it never shows in comparisons or serialization.
 */
const keptWires = new WeakMap<object, KeptWire>();

/**
 * Keeps `answerText` (the wire `text` with the caller's id swapped in) as the answer's wire text.
 * The swap changes only ASCII digits, so the wire size moves by the difference in text length.
 */
function keepWire(answer: object, text: string, answerText: string, bytes: number | undefined): void {
  keptWires.set(answer, {
    text: answerText,
    bytes: bytes === undefined ? undefined : bytes + answerText.length - text.length,
  });
}

/**
 * The answer frame under the caller's id (the wire id when the caller has none): a success left
 * unparsed becomes an answer whose `result` is parsed on first read; a parsed one gets its id
 * replaced. Its wire text is kept when the id swap can be done on the text.
 */
export function asCallerAnswer(wire: WireAnswer, callerId: number | undefined): AnswerFrame {
  const { text, bytes, frame } = wire;
  if (frame === undefined) {
    const end = successIdEnd(text);
    const id = callerId ?? Number(text.slice(SUCCESS_PREFIX.length, end));
    const answerText = callerId === undefined ? text : `${SUCCESS_PREFIX}${callerId}${text.slice(end)}`;
    const answer = unparsedSuccess(id, answerText);
    keepWire(answer, text, answerText, bytes);
    return answer;
  }
  const wireId = frame.id;
  const answerText =
    callerId === undefined || typeof wireId !== "number"
      ? text
      : swapAnswerId(text, frame.type, wireId, callerId);
  if (callerId !== undefined) frame.id = callerId;
  if (answerText !== undefined) keepWire(frame, text, answerText, bytes);
  return frame;
}

/**
 * The JSON text of an answer `asCallerAnswer` built, as Firefox sent it (under the caller's id),
 * or undefined when it could not be taken from the wire as is.
 */
export function answerWireText(answer: unknown): string | undefined {
  return typeof answer === "object" && answer !== null ? keptWires.get(answer)?.text : undefined;
}

/**
 * The UTF-8 byte length of `answerWireText(answer)`, known from the wire frame's size when the
 * transport reported it; undefined otherwise (then count the text itself).
 */
export function answerWireBytes(answer: unknown): number | undefined {
  return typeof answer === "object" && answer !== null ? keptWires.get(answer)?.bytes : undefined;
}

/**
 * A success answer whose `result` is parsed from `text` on first read, then kept. The getter is
 * an own enumerable property (an object literal's accessor: cheap to make, unlike
 * defineProperty), so the answer serializes, compares and is walked (`Object.hasOwn`) like a
 * parsed one.
 */
function unparsedSuccess(id: number, text: string): AnswerFrame {
  let parsed: { result?: unknown } | undefined;
  return {
    type: "success",
    id,
    get result(): unknown {
      if (parsed === undefined) {
        try {
          parsed = JSON.parse(text) as { result?: unknown };
        } catch {
          // Not JSON after all (never from Firefox): no result, so a reference to it says so.
          parsed = {};
        }
      }
      return parsed.result;
    },
  };
}

/**
 * The answer text with its top-level id replaced, when the text starts the way Firefox writes an
 * answer: `{"type":"<type>","id":<wire id>,` (no whitespace). Anything else: undefined.
 */
function swapAnswerId(
  text: string,
  type: string | undefined,
  wireId: number,
  callerId: number,
): string | undefined {
  if (type !== "success" && type !== "error") return undefined;
  const prefix = `{"type":"${type}","id":${wireId},`;
  if (!text.startsWith(prefix)) return undefined;
  return `{"type":"${type}","id":${callerId},${text.slice(prefix.length)}`;
}
