/**
 * `{{id.path}}` references between the frames of one batch.
 *
 * Rules (README of the Pi package, spec 003):
 * - A string value that is exactly one reference, `"{{3.result.context}}"`, is
 *   replaced by the referenced value with its JSON type kept (string, number,
 *   boolean, null, array, object).
 * - A reference inside a longer string is replaced by the text of a primitive
 *   (string, number, boolean); an array, object or null there is an error,
 *   because no text form of it would be what the caller meant.
 * - `{{{{...}}}}` is an escape: it becomes the literal `{{...}}` and is not resolved.
 * - The path is read from the verbatim response frame of an earlier frame of
 *   the same batch (`result.*`, or `type`, `error`, `message` of an error frame).
 *   Path segments are separated by dots; a numeric segment indexes an array.
 * - A reference to an id that is unknown, to a frame that failed, or to a path
 *   that is missing throws `ReferenceResolutionError` with a message that says which.
 * Only values are rewritten, never object keys. Input values are not mutated;
 * params without any reference are returned as they are.
 */

import type { JsonObject, JsonValue, ResponseFrame } from "./types.js";

/** What an earlier frame of the batch produced, as references see it. */
export type ReferenceTarget = { status: "ok"; response: ResponseFrame } | { status: "failed" };

export class ReferenceResolutionError extends Error {
  override readonly name = "ReferenceResolutionError";
}

const ESCAPED_OR_REFERENCE = /\{\{\{\{([^{}]*)\}\}\}\}|\{\{([^{}]*)\}\}/g;

/** A reference expression taken apart: the frame id and the path, array indexes as numbers. */
interface ParsedReference {
  id: number;
  segments: string[];
  /** Per segment: its value as an array index when it is all digits, else undefined. */
  indexes: (number | undefined)[];
}

/**
 * Parsed expressions, by their text: a batch writes the same reference many times
 * (`{{1.result.contexts.0.context}}` in every frame). Cleared when full, so it stays small.
 */
const parsedReferences = new Map<string, ParsedReference>();
const MAX_PARSED_REFERENCES = 256;
const ALL_DIGITS = /^\d+$/;

/** True when the string holds at least one `{{` that resolution would act on. */
function mayHoldReference(text: string): boolean {
  return text.includes("{{");
}

export function resolveReferences(
  params: JsonObject,
  targets: ReadonlyMap<number, ReferenceTarget>,
): JsonObject {
  return resolveValue(params, { targets, stopAtUnanswered: false, stopped: false }) as JsonObject;
}

/**
 * Like resolveReferences, but undefined (no error) when a reference names a frame that has no
 * answer yet. For resolving a frame's params ahead of its turn while the frame it waits on is
 * still in flight, the usual case: an error there would cost a stack capture on the hot path.
 * Every other problem still throws, as in resolveReferences.
 */
export function resolveReferencesIfAnswered(
  params: JsonObject,
  targets: ReadonlyMap<number, ReferenceTarget>,
): JsonObject | undefined {
  const resolution: Resolution = { targets, stopAtUnanswered: true, stopped: false };
  const resolved = resolveValue(params, resolution) as JsonObject;
  return resolution.stopped ? undefined : resolved;
}

/** One resolution's inputs, and whether it stopped at a frame that has not answered. */
interface Resolution {
  targets: ReadonlyMap<number, ReferenceTarget>;
  stopAtUnanswered: boolean;
  stopped: boolean;
}

/**
 * One walk: the value with its references resolved, copied only along the
 * paths where something changed. Most frames carry no reference: their params
 * come back as they are, walked once and never copied. A stopped resolution
 * returns at once; its partial value is never used.
 */
function resolveValue(value: JsonValue, resolution: Resolution): JsonValue {
  if (typeof value === "string") return mayHoldReference(value) ? resolveString(value, resolution) : value;
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item = value[index] as JsonValue;
      const resolved = resolveValue(item, resolution);
      if (resolution.stopped) return value;
      if (out === undefined && resolved !== item) out = value.slice(0, index);
      out?.push(resolved);
    }
    return out ?? value;
  }
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    let out: JsonObject | undefined;
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string;
      const item = value[key] as JsonValue;
      const resolved = resolveValue(item, resolution);
      if (resolution.stopped) return value;
      if (out === undefined && resolved !== item) {
        out = {};
        for (const earlier of keys.slice(0, index)) out[earlier] = value[earlier] as JsonValue;
      }
      if (out !== undefined) out[key] = resolved;
    }
    return out ?? value;
  }
  return value;
}

/** The expression inside `{{...}}` when the whole text is one reference, else undefined. */
function wholeReference(text: string): string | undefined {
  if (text.length < 4 || !text.startsWith("{{") || !text.endsWith("}}")) return undefined;
  const inner = text.slice(2, -2);
  return inner.includes("{") || inner.includes("}") ? undefined : inner;
}

function resolveString(text: string, resolution: Resolution): JsonValue {
  const whole = wholeReference(text);
  if (whole !== undefined) return lookup(whole, resolution, text);
  return text.replace(
    ESCAPED_OR_REFERENCE,
    (match, escaped: string | undefined, reference: string | undefined) => {
      if (escaped !== undefined) return `{{${escaped}}}`;
      if (resolution.stopped) return "";
      const value = lookup(reference ?? "", resolution, match);
      if (resolution.stopped) return "";
      if (typeof value === "string") return value;
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      const kind = value === null ? "null" : Array.isArray(value) ? "an array" : "an object";
      throw new ReferenceResolutionError(
        `Reference ${match} is embedded in a longer string but points to ${kind}; only strings, numbers and booleans can be embedded. Use the reference as the whole string value to pass ${kind} with its JSON type.`,
      );
    },
  );
}

function lookup(expression: string, resolution: Resolution, written: string): JsonValue {
  const { id, segments, indexes } = parseReference(expression, written);
  const target = resolution.targets.get(id);
  if (!target) {
    if (resolution.stopAtUnanswered) {
      resolution.stopped = true;
      return null;
    }
    throw new ReferenceResolutionError(
      `Reference ${written} names frame id ${id}, which is not an earlier frame of this batch; references only reach frames sent before this one in the same call.`,
    );
  }
  if (target.status === "failed") {
    throw new ReferenceResolutionError(
      `Reference ${written} points to frame ${id}, which failed; it has no result to read.`,
    );
  }
  let current: JsonValue = target.response;
  for (let depth = 0; depth < segments.length; depth += 1) {
    const next = childOf(current, segments[depth] as string, indexes[depth]);
    if (next === undefined) {
      throw new ReferenceResolutionError(
        `Reference ${written}: frame ${id}'s response has no value at "${segments.slice(0, depth + 1).join(".")}". Check the path against the response.`,
      );
    }
    current = next;
  }
  return current;
}

function parseReference(expression: string, written: string): ParsedReference {
  const known = parsedReferences.get(expression);
  if (known) return known;
  const [idText, ...segments] = expression.trim().split(".");
  const id = Number(idText);
  if (!idText || !Number.isSafeInteger(id) || id < 0) {
    throw new ReferenceResolutionError(
      `Reference ${written} does not start with a frame id; write {{<id>.result.<path>}}, e.g. {{1.result.context}}.`,
    );
  }
  const parsed: ParsedReference = {
    id,
    segments,
    indexes: segments.map((segment) => (ALL_DIGITS.test(segment) ? Number(segment) : undefined)),
  };
  if (parsedReferences.size >= MAX_PARSED_REFERENCES) parsedReferences.clear();
  parsedReferences.set(expression, parsed);
  return parsed;
}

function childOf(value: JsonValue, segment: string, index: number | undefined): JsonValue | undefined {
  if (Array.isArray(value)) return index === undefined ? undefined : value[index];
  if (value !== null && typeof value === "object" && Object.hasOwn(value, segment)) return value[segment];
  return undefined;
}
