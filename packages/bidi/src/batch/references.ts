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
const WHOLE_REFERENCE = /^\{\{([^{}]*)\}\}$/;

/** True when the string holds at least one `{{` that resolution would act on. */
function mayHoldReference(text: string): boolean {
  return text.includes("{{");
}

export function resolveReferences(
  params: JsonObject,
  targets: ReadonlyMap<number, ReferenceTarget>,
): JsonObject {
  return resolveValue(params, targets) as JsonObject;
}

/**
 * One walk: the value with its references resolved, copied only along the
 * paths where something changed. Most frames carry no reference: their params
 * come back as they are, walked once and never copied.
 */
function resolveValue(value: JsonValue, targets: ReadonlyMap<number, ReferenceTarget>): JsonValue {
  if (typeof value === "string") return mayHoldReference(value) ? resolveString(value, targets) : value;
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item = value[index] as JsonValue;
      const resolved = resolveValue(item, targets);
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
      const resolved = resolveValue(item, targets);
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

function resolveString(text: string, targets: ReadonlyMap<number, ReferenceTarget>): JsonValue {
  const whole = WHOLE_REFERENCE.exec(text);
  if (whole) return lookup(whole[1] ?? "", targets, text);
  return text.replace(
    ESCAPED_OR_REFERENCE,
    (match, escaped: string | undefined, reference: string | undefined) => {
      if (escaped !== undefined) return `{{${escaped}}}`;
      const value = lookup(reference ?? "", targets, match);
      if (typeof value === "string") return value;
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      const kind = value === null ? "null" : Array.isArray(value) ? "an array" : "an object";
      throw new ReferenceResolutionError(
        `Reference ${match} is embedded in a longer string but points to ${kind}; only strings, numbers and booleans can be embedded. Use the reference as the whole string value to pass ${kind} with its JSON type.`,
      );
    },
  );
}

function lookup(
  expression: string,
  targets: ReadonlyMap<number, ReferenceTarget>,
  written: string,
): JsonValue {
  const [idText, ...path] = expression.trim().split(".");
  const id = Number(idText);
  if (!idText || !Number.isSafeInteger(id) || id < 0) {
    throw new ReferenceResolutionError(
      `Reference ${written} does not start with a frame id; write {{<id>.result.<path>}}, e.g. {{1.result.context}}.`,
    );
  }
  const target = targets.get(id);
  if (!target) {
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
  for (let depth = 0; depth < path.length; depth += 1) {
    const next = childOf(current, path[depth] as string);
    if (next === undefined) {
      throw new ReferenceResolutionError(
        `Reference ${written}: frame ${id}'s response has no value at "${path.slice(0, depth + 1).join(".")}". Check the path against the response.`,
      );
    }
    current = next;
  }
  return current;
}

function childOf(value: JsonValue, segment: string): JsonValue | undefined {
  if (Array.isArray(value)) {
    if (!/^\d+$/.test(segment)) return undefined;
    return value[Number(segment)];
  }
  if (value !== null && typeof value === "object" && Object.hasOwn(value, segment)) return value[segment];
  return undefined;
}
