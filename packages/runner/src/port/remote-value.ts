/**
 * Turning BiDi `script.RemoteValue`s (what `script.callFunction` answers) back into plain JSON.
 *
 * Invariants:
 * - Primitives, arrays and plain objects become their JSON equivalents; `undefined`, functions,
 *   symbols and the like become `null` (a page action result is JSON by contract).
 * - A DOM node becomes `{ sharedId }` (an ElementHandle): the runner passes it back to Firefox
 *   (`input.performActions` origins, `input.setFiles`, `this` of a later call) and never shows
 *   it to the model.
 */
import type * as Bidi from "webdriver-bidi-protocol";

/** A DOM node living in the page, addressable by later BiDi commands. */
export interface ElementHandle {
  sharedId: string;
}

export type PlainValue =
  | null
  | boolean
  | number
  | string
  | ElementHandle
  | PlainValue[]
  | { [key: string]: PlainValue };

export function isElementHandle(value: unknown): value is ElementHandle {
  return (
    typeof value === "object" &&
    value !== null &&
    "sharedId" in value &&
    typeof (value as ElementHandle).sharedId === "string" &&
    Object.keys(value).length === 1
  );
}

export function fromRemoteValue(value: Bidi.Script.RemoteValue): PlainValue {
  switch (value.type) {
    case "string":
      return value.value;
    case "number":
      // NaN, Infinity and -0 arrive as strings; JSON cannot carry them, the model gets null.
      return typeof value.value === "number" ? value.value : null;
    case "boolean":
      return value.value;
    case "bigint":
      return value.value;
    case "null":
    case "undefined":
      return null;
    case "array":
    case "set":
      return (value.value ?? []).map(fromRemoteValue);
    case "object":
    case "map": {
      const out: { [key: string]: PlainValue } = {};
      for (const [key, item] of value.value ?? []) {
        if (typeof key === "string") out[key] = fromRemoteValue(item);
      }
      return out;
    }
    case "node":
      return value.sharedId ? { sharedId: value.sharedId } : null;
    case "date":
      return value.value;
    case "regexp":
      return `/${value.value.pattern}/${value.value.flags ?? ""}`;
    default:
      return null;
  }
}
