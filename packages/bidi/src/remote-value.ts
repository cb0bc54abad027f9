/**
 * Converts between plain JS values and BiDi script values.
 *
 * Invariants:
 * - `toLocalValue` accepts JSON-like data plus undefined, bigint, Date, RegExp, Map, Set and
 *   non-finite numbers; anything else (functions, symbols, class instances other than those)
 *   is a TypeError naming the offending path, never a silent `{}`.
 * - `fromRemoteValue` turns values into plain JS; values that only make sense in the page
 *   (nodes, windows, functions, promises, ...) are returned as the RemoteValue itself, so their
 *   `sharedId` / `handle` can be passed back with `remoteRef`.
 */
import type * as Bidi from "webdriver-bidi-protocol";

type LocalValue = Bidi.Script.LocalValue;
type RemoteValue = Bidi.Script.RemoteValue;

const RAW_LOCAL_VALUE = Symbol("webbrain.bidi.rawLocalValue");

/** A LocalValue passed through unchanged by `toLocalValue`. */
export interface RawLocalValue {
  readonly [RAW_LOCAL_VALUE]: LocalValue;
}

/** Wraps an already-encoded BiDi LocalValue so it is sent as is. */
export function rawLocalValue(value: LocalValue): RawLocalValue {
  return { [RAW_LOCAL_VALUE]: value };
}

/** A reference to a page object by `sharedId` (nodes) or `handle`, for args or `this`. */
export function remoteRef(ref: { sharedId?: string; handle?: string }): RawLocalValue {
  if (ref.sharedId !== undefined) return rawLocalValue({ sharedId: ref.sharedId });
  if (ref.handle !== undefined) return rawLocalValue({ handle: ref.handle });
  throw new TypeError("remoteRef needs a sharedId or a handle (from a node or object RemoteValue).");
}

function isRaw(value: unknown): value is RawLocalValue {
  return typeof value === "object" && value !== null && RAW_LOCAL_VALUE in value;
}

function encodeNumber(value: number): LocalValue {
  if (Number.isNaN(value)) return { type: "number", value: "NaN" };
  if (Object.is(value, -0)) return { type: "number", value: "-0" };
  if (value === Number.POSITIVE_INFINITY) return { type: "number", value: "Infinity" };
  if (value === Number.NEGATIVE_INFINITY) return { type: "number", value: "-Infinity" };
  return { type: "number", value };
}

/** Encodes a plain JS value as a BiDi LocalValue. */
export function toLocalValue(value: unknown, path = "value"): LocalValue {
  if (isRaw(value)) return value[RAW_LOCAL_VALUE];
  switch (typeof value) {
    case "undefined":
      return { type: "undefined" };
    case "string":
      return { type: "string", value };
    case "number":
      return encodeNumber(value);
    case "boolean":
      return { type: "boolean", value };
    case "bigint":
      return { type: "bigint", value: value.toString() };
    case "object":
      break;
    default:
      throw new TypeError(
        `${path}: a ${typeof value} cannot be sent to the page; pass data or a remoteRef().`,
      );
  }
  if (value === null) return { type: "null" };
  if (Array.isArray(value)) {
    return { type: "array", value: value.map((v, i) => toLocalValue(v, `${path}[${i}]`)) };
  }
  if (value instanceof Date) return { type: "date", value: value.toISOString() };
  if (value instanceof RegExp)
    return { type: "regexp", value: { pattern: value.source, flags: value.flags } };
  if (value instanceof Map) {
    return {
      type: "map",
      value: [...value.entries()].map(([k, v]) => [
        typeof k === "string" ? k : toLocalValue(k, `${path}.key`),
        toLocalValue(v, `${path}.get(${String(k)})`),
      ]),
    };
  }
  if (value instanceof Set) {
    return { type: "set", value: [...value].map((v, i) => toLocalValue(v, `${path}[set ${i}]`)) };
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError(
      `${path}: class instances cannot be sent to the page; pass plain data or a remoteRef().`,
    );
  }
  return {
    type: "object",
    value: Object.entries(value).map(([k, v]) => [k, toLocalValue(v, `${path}.${k}`)]),
  };
}

function decodeNumber(value: number | Bidi.Script.SpecialNumber): number {
  switch (value) {
    case "NaN":
      return Number.NaN;
    case "-0":
      return -0;
    case "Infinity":
      return Number.POSITIVE_INFINITY;
    case "-Infinity":
      return Number.NEGATIVE_INFINITY;
    default:
      return value;
  }
}

/** Decodes a BiDi RemoteValue into plain JS (page-only objects stay RemoteValues). */
export function fromRemoteValue(remote: RemoteValue): unknown {
  switch (remote.type) {
    case "undefined":
      return undefined;
    case "null":
      return null;
    case "string":
    case "boolean":
      return remote.value;
    case "number":
      return decodeNumber(remote.value);
    case "bigint":
      return BigInt(remote.value);
    case "array":
    case "set": {
      // Without a value the serializer hit maxObjectDepth: keep the reference.
      if (!remote.value) return remote;
      const items = remote.value.map(fromRemoteValue);
      return remote.type === "set" ? new Set(items) : items;
    }
    case "object": {
      if (!remote.value) return remote;
      const out: Record<string, unknown> = {};
      for (const [k, v] of remote.value) {
        out[typeof k === "string" ? k : String(fromRemoteValue(k))] = fromRemoteValue(v);
      }
      return out;
    }
    case "map": {
      if (!remote.value) return remote;
      return new Map(
        remote.value.map(([k, v]) => [typeof k === "string" ? k : fromRemoteValue(k), fromRemoteValue(v)]),
      );
    }
    case "date":
      return new Date(remote.value);
    case "regexp":
      return new RegExp(remote.value.pattern, remote.value.flags);
    default:
      return remote;
  }
}
