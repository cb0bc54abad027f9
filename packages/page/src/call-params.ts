/**
 * Reads a page call's params by its action's schema (@webbrain/protocol PAGE_CALL_SCHEMAS): the
 * one place that decides what is accepted, so an action receives `PageCallParams<name>`.
 *
 * Models and ports send numbers as strings ("31"), refs as the tree prints them ("[31]") and
 * booleans as "true": these are converted. `null` is an argument left out; so is "" where a
 * number, a ref or a choice is expected. Anything else that does not fit is a `bad_params` error
 * that names the argument and says what it must be. Arguments the schema does not name are
 * dropped; defaults are the action's own.
 *
 * The schemas arrive as JSON Schema (the bundle carries them as data, without typebox), so this
 * reads the forms the contracts use: object, string, number, integer, boolean, enum, array and
 * anyOf. A ref is the anyOf of integer and string (protocol shorthands.ts `ref`).
 */
import { badParams } from "./page-error.js";

/** The JSON Schema forms a page call's schema is made of. */
export interface CallSchema {
  type?: string;
  properties?: Readonly<Record<string, CallSchema>>;
  required?: readonly string[];
  enum?: readonly unknown[];
  anyOf?: readonly CallSchema[];
  items?: CallSchema;
}

const REF_TEXT = /^\[?(\d+)\]?$/;

class ParamProblem extends Error {}

function isRefSchema(schema: CallSchema): boolean {
  const types = schema.anyOf?.map((member) => member.type);
  return types?.length === 2 && types.includes("integer") && types.includes("string");
}

function describe(schema: CallSchema): string {
  if (isRefSchema(schema)) return "a ref number as printed in the tree (e.g. 31)";
  if (schema.anyOf) return schema.anyOf.map(describe).join(" or ");
  if (schema.enum) return `one of ${schema.enum.join(", ")}`;
  if (schema.type === "array") return schema.items?.type ? `a list of ${schema.items.type}s` : "a list";
  if (schema.type === "boolean") return "true or false";
  if (schema.type === "integer") return "a number";
  return `a ${schema.type ?? "value"}`;
}

function textOf(name: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new ParamProblem(`"${name}" must be a string, got ${typeof value}`);
}

/** `value` as the schema says, or undefined where it counts as left out; throws ParamProblem. */
function convert(name: string, schema: CallSchema, value: unknown): unknown {
  if (isRefSchema(schema)) {
    if (value === "") return undefined;
    const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
    const match = REF_TEXT.exec(text);
    if (!match?.[1])
      throw new ParamProblem(`"${name}" must be ${describe(schema)}, got ${JSON.stringify(value)}`);
    return Number(match[1]);
  }
  if (schema.anyOf) {
    for (const member of schema.anyOf) {
      try {
        return convert(name, member, value);
      } catch (error) {
        if (!(error instanceof ParamProblem)) throw error;
      }
    }
    throw new ParamProblem(`"${name}" must be ${describe(schema)}, got ${JSON.stringify(value)}`);
  }
  if (schema.enum) {
    const text = textOf(name, value);
    if (text === "") return undefined;
    if (schema.enum.includes(text)) return text;
    throw new ParamProblem(`"${name}" must be ${describe(schema)}; got ${JSON.stringify(text)}`);
  }
  switch (schema.type) {
    case "string":
      return textOf(name, value);
    case "number":
    case "integer": {
      if (value === "") return undefined;
      const parsed = typeof value === "string" ? Number(value.trim()) : value;
      if (typeof parsed !== "number" || !Number.isFinite(parsed))
        throw new ParamProblem(`"${name}" must be a number, got ${JSON.stringify(value)}`);
      return parsed;
    }
    case "boolean":
      if (typeof value === "boolean") return value;
      if (value === "true") return true;
      if (value === "false") return false;
      throw new ParamProblem(`"${name}" must be true or false, got ${JSON.stringify(value)}`);
    case "array": {
      if (!Array.isArray(value))
        throw new ParamProblem(`"${name}" must be ${describe(schema)}, got ${JSON.stringify(value)}`);
      const items = schema.items;
      return items ? value.map((item, i) => convert(`${name}[${i}]`, items, item)) : value;
    }
    case "object":
      return readObject(schema, value, name);
    default:
      return value;
  }
}

function readObject(schema: CallSchema, raw: unknown, name?: string): Record<string, unknown> {
  const what = name === undefined ? "params" : `"${name}"`;
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new ParamProblem(`${what} must be a JSON object, got ${Array.isArray(raw) ? "array" : typeof raw}`);
  const given = raw as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const value = Object.hasOwn(given, key) ? given[key] : undefined;
    const read = value === undefined || value === null ? undefined : convert(key, property, value);
    if (read !== undefined) out[key] = read;
    else if (schema.required?.includes(key)) {
      const hint = isRefSchema(property) ? ": pass the number shown in [brackets] in the tree" : "";
      throw new ParamProblem(`"${key}" is required${hint}`);
    }
  }
  return out;
}

/** The params of a call to `action`, read by its schema; a `bad_params` PageError when they do not fit. */
export function readCallParams(action: string, schema: CallSchema, raw: unknown): Record<string, unknown> {
  try {
    return readObject(schema, raw);
  } catch (error) {
    if (error instanceof ParamProblem) throw badParams(action, error.message);
    throw error;
  }
}
