/**
 * An upper bound on the UTF-8 size of a value's JSON text, found by walking the
 * value instead of serializing it.
 *
 * Invariant: `jsonBytesBound(value, limit)` is never below the UTF-8 byte
 * length of `JSON.stringify(value)`. It stops walking as soon as the bound
 * passes `limit` (then it returns some number over `limit`), and it returns
 * Infinity for anything it cannot bound safely (a `toJSON` method, a bigint,
 * nesting deeper than MAX_BOUND_DEPTH, which also stops cycles), so a caller
 * that sees a bound over its limit serializes for the exact size.
 *
 * Why: the engine must refuse request frames over 1 MiB, but nearly every
 * frame is a few hundred bytes; serializing each one only to measure it costs
 * more than this walk, and the client serializes the frame again to send it.
 */

/**
 * Most UTF-8 bytes one UTF-16 code unit can take in JSON text: an escape such
 * as `\u001f` or a lone surrogate's `\udc00` is 6 ASCII bytes; any other unit
 * is at most 3 bytes (a surrogate pair: 4 bytes for 2 units).
 */
const MAX_JSON_BYTES_PER_UNIT = 6;
/** Longest JSON text of a finite number, e.g. `-2.2250738585072014e-308` (24 characters). */
const MAX_JSON_NUMBER_BYTES = 25;
/** `false`, the longest JSON literal. */
const MAX_JSON_LITERAL_BYTES = 5;
/** Walks deeper than this give up (Infinity), which also ends a walk around a cycle. */
const MAX_BOUND_DEPTH = 64;

export function jsonBytesBound(value: unknown, limit: number): number {
  return bound(value, limit, 0);
}

function bound(value: unknown, budget: number, depth: number): number {
  switch (typeof value) {
    case "string":
      return value.length * MAX_JSON_BYTES_PER_UNIT + 2;
    case "number":
      return MAX_JSON_NUMBER_BYTES;
    case "boolean":
    case "undefined":
    case "function":
    case "symbol":
      // undefined, functions and symbols are left out of objects and become `null` in arrays.
      return MAX_JSON_LITERAL_BYTES;
    case "bigint":
      return Number.POSITIVE_INFINITY;
  }
  if (value === null) return MAX_JSON_LITERAL_BYTES;
  if (depth >= MAX_BOUND_DEPTH) return Number.POSITIVE_INFINITY;
  const object = value as Record<string, unknown>;
  if (typeof object.toJSON === "function") return Number.POSITIVE_INFINITY;
  // Brackets, plus one comma or colon per entry and per key.
  let total = 2;
  if (Array.isArray(object)) {
    for (let index = 0; index < object.length && total <= budget; index += 1) {
      total += bound(object[index], budget - total, depth + 1) + 1;
    }
    return total;
  }
  for (const key in object) {
    if (total > budget) break;
    if (!Object.hasOwn(object, key)) continue;
    total += key.length * MAX_JSON_BYTES_PER_UNIT + 3 + bound(object[key], budget - total, depth + 1) + 1;
  }
  return total;
}
