/**
 * How a tool's outcome becomes what the model reads (`content`) and what code reads (`details`),
 * as pi-mono's `{content, details}`.
 *
 * Invariants: every result starts with a status line the agent wrote (`[click_ax ok]`,
 * `[click_ax failed]`), so page text can never forge the status; page-derived content follows
 * inside the untrusted wrapper; the whole text is capped at MAX_TOOL_RESULT_CHARS.
 * Long multi-line fields (tree, text, source) are printed raw rather than JSON-escaped: raw
 * lines are shorter and easier for small models to read.
 * `details` is the structured result, whole and uncapped (`success`, `error` or `message`, and
 * the tool's fields): code that needs data from a result reads it there, never from the text.
 * Bookkeeping the model cannot use (MODEL_HIDDEN_FIELDS) is in `details` only.
 */
import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import { capText, MAX_TOOL_RESULT_CHARS, wrapUntrusted } from "../guards/untrusted.js";
import type { JsonValue, PageResult } from "./browser-port.js";

/** Room the status line and the wrapper take, so the capped whole stays under the limit. */
const WRAPPER_ALLOWANCE = 300;
/** String fields at least this long, or with newlines, are printed raw after the JSON. */
const RAW_FIELD_MIN_CHARS = 120;

/**
 * Result fields for code, not for the model: timings, counters and ref bookkeeping, and the tree
 * as data (`nodes`, asked for by the guard, traces and replay: the model reads the printed tree).
 * Dropped from the text at the top level and one level down (`metadata.build_ms`). The counters
 * (`chars`, `lines`, `refs`) only when they are numbers, so a tool whose `refs` is a list still
 * shows it.
 */
export const MODEL_HIDDEN_FIELDS: ReadonlySet<string> = new Set([
  "build_ms",
  "elements_visited",
  "full_chars",
  "last_ref",
  "nodes",
  "ref_names",
]);
const MODEL_HIDDEN_COUNTS: ReadonlySet<string> = new Set(["chars", "lines", "refs"]);

function hiddenFromModel(key: string, value: unknown): boolean {
  return MODEL_HIDDEN_FIELDS.has(key) || (MODEL_HIDDEN_COUNTS.has(key) && typeof value === "number");
}

export interface ToolContent {
  /** What the model reads. */
  content: (TextContent | ImageContent)[];
  isError: boolean;
  /** The structured result for code (exec, MCP, guards, traces); never sent to the model. */
  details?: PageResult;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The result without MODEL_HIDDEN_FIELDS, for the text the model reads. */
export function modelFields(result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (hiddenFromModel(key, value)) continue;
    if (isPlainObject(value)) {
      const inner: Record<string, unknown> = {};
      for (const [innerKey, innerValue] of Object.entries(value))
        if (!hiddenFromModel(innerKey, innerValue)) inner[innerKey] = innerValue;
      out[key] = inner;
    } else {
      out[key] = value;
    }
  }
  return out;
}

export function statusLine(tool: string, ok: boolean): string {
  return `[${tool} ${ok ? "ok" : "failed"}]`;
}

/** Render a result object: short fields as one JSON line, long text fields raw below it. */
export function renderFields(result: Record<string, unknown>): string {
  const short: Record<string, unknown> = {};
  const raw: string[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (value === undefined) continue;
    if (typeof value === "string" && (value.length >= RAW_FIELD_MIN_CHARS || value.includes("\n"))) {
      raw.push(`${key}:\n${value}`);
    } else {
      short[key] = value;
    }
  }
  return [JSON.stringify(short), ...raw].join("\n");
}

/**
 * A result carrying page or third-party content. `shown`: the fields the model reads, when they
 * are fewer than the result's (request-echoes.ts); `details` is always the whole result.
 */
export function untrustedResult(
  tool: string,
  source: string,
  result: PageResult,
  notes: string[] = [],
  shown: PageResult = result,
): ToolContent {
  const ok = result.success !== false;
  const body = wrapUntrusted(
    source,
    capText(renderFields(modelFields(shown)), MAX_TOOL_RESULT_CHARS - WRAPPER_ALLOWANCE),
  );
  const text = [statusLine(tool, ok), ...notes, body].join("\n");
  return { content: [{ type: "text", text: capText(text) }], isError: !ok, details: result };
}

/**
 * A result with no page text (scroll offsets, wait outcomes, a verified type): printed plain,
 * details whole. `shown`: the fields the model reads, as for untrustedResult.
 */
export function plainResult(tool: string, result: PageResult, shown: PageResult = result): ToolContent {
  const { success: _success, ...rest } = shown;
  const fields = modelFields(rest) as Record<string, JsonValue | undefined>;
  return { ...agentResult(tool, result.success !== false, "", fields), details: result };
}

/**
 * A result the agent itself wrote (refusals, guard messages, navigation status). Its details
 * say `success`, the message as `error` (failed) or `message` (ok), and `extra`'s fields.
 */
export function agentResult(
  tool: string,
  ok: boolean,
  message: string,
  extra?: Record<string, JsonValue | undefined>,
): ToolContent {
  const shown = extra ? `\n${JSON.stringify(extra)}` : "";
  const said = message ? (ok ? { message } : { error: message }) : ok ? {} : { error: "The call failed." };
  return {
    content: [{ type: "text", text: capText(`${statusLine(tool, ok)} ${message}${shown}`) }],
    isError: !ok,
    details: { ...extra, success: ok, ...said },
  };
}

export function withNote(outcome: ToolContent, note: string): ToolContent {
  const [first, ...rest] = outcome.content;
  if (first?.type !== "text")
    return { ...outcome, content: [{ type: "text", text: note }, ...outcome.content] };
  return { ...outcome, content: [{ type: "text", text: `${first.text}\n${note}` }, ...rest] };
}

/**
 * ref -> accessible name, from a tree result's structured `ref_names` (the page layer reports
 * the name of every ref it printed): labels click_ax for the submit guard.
 */
export function refNamesOf(result: PageResult | undefined): Map<string, string> {
  const names = new Map<string, string>();
  const field =
    result?.ref_names ?? (isPlainObject(result?.metadata) ? result.metadata.ref_names : undefined);
  if (!isPlainObject(field)) return names;
  for (const [ref, name] of Object.entries(field)) if (typeof name === "string") names.set(ref, name);
  return names;
}

/** The page refused a submit on validation (the guard forgets it so a fix may be resubmitted). */
export function isValidationRejection(result: PageResult): boolean {
  if (result.success === false) return true;
  const invalid = result.invalidFields;
  return Array.isArray(invalid) && invalid.length > 0;
}
