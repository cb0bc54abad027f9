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
 * Bookkeeping the model cannot use (the result's `meta`: the tree's counts and timing, ref names,
 * nodes) is in `details` only.
 */
import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import { capText, MAX_TOOL_RESULT_CHARS, wrapUntrusted } from "../guards/untrusted.js";
import type { JsonValue, PageResult } from "./browser-port.js";

/** Room the status line and the wrapper take, so the capped whole stays under the limit. */
const WRAPPER_ALLOWANCE = 300;
/** String fields at least this long, or with newlines, are printed raw after the JSON. */
const RAW_FIELD_MIN_CHARS = 120;

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

/**
 * The result as the model reads it: without its `meta`, the part for code (timings, counters, ref
 * bookkeeping, the tree as nodes: @webbrain/protocol page-answer.ts).
 */
export function modelFields(result: Record<string, unknown>): Record<string, unknown> {
  const { meta: _forCode, ...shown } = result;
  return shown;
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
 * ref -> accessible name, from a tree result's `meta.ref_names` (the page layer reports the name
 * of every ref it printed): labels click_ax for the submit guard.
 */
export function refNamesOf(result: PageResult | undefined): Map<string, string> {
  const names = new Map<string, string>();
  const field: unknown = result?.meta?.ref_names;
  if (!isPlainObject(field)) return names;
  for (const [ref, name] of Object.entries(field)) if (typeof name === "string") names.set(ref, name);
  return names;
}

/**
 * The page refused a submit on validation (the guard forgets it so a fix may be resubmitted): a
 * failure, or a submit that names invalid fields and did not submit (set_field's `invalid_fields`).
 */
export function isValidationRejection(result: PageResult): boolean {
  if (result.success === false) return true;
  const invalid = result.invalid_fields;
  return Array.isArray(invalid) && invalid.length > 0;
}
