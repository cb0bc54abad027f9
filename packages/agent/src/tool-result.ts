/**
 * How a tool's outcome becomes the text the model reads.
 *
 * Invariants: every result starts with a status line the agent wrote (`[click_ax ok]`,
 * `[click_ax failed]`), so page text can never forge the status; page-derived content follows
 * inside the untrusted wrapper; the whole text is capped at MAX_TOOL_RESULT_CHARS.
 * Long multi-line fields (tree, text, source) are printed raw rather than JSON-escaped: raw
 * lines are shorter and easier for small models to read.
 */
import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import type { PageResult } from "./browser-port.js";
import { capText, MAX_TOOL_RESULT_CHARS, wrapUntrusted } from "./untrusted.js";

/** Room the status line and the wrapper take, so the capped whole stays under the limit. */
const WRAPPER_ALLOWANCE = 300;
/** String fields at least this long, or with newlines, are printed raw after the JSON. */
const RAW_FIELD_MIN_CHARS = 120;

export interface ToolContent {
  content: (TextContent | ImageContent)[];
  isError: boolean;
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

/** A result carrying page or third-party content. */
export function untrustedResult(
  tool: string,
  source: string,
  result: PageResult,
  notes: string[] = [],
): ToolContent {
  const ok = result.success !== false;
  const body = wrapUntrusted(
    source,
    capText(renderFields(result), MAX_TOOL_RESULT_CHARS - WRAPPER_ALLOWANCE),
  );
  const text = [statusLine(tool, ok), ...notes, body].join("\n");
  return { content: [{ type: "text", text: capText(text) }], isError: !ok };
}

/** A result the agent itself wrote (refusals, guard messages, navigation status). */
export function agentResult(
  tool: string,
  ok: boolean,
  message: string,
  extra?: Record<string, unknown>,
): ToolContent {
  const details = extra ? `\n${JSON.stringify(extra)}` : "";
  return {
    content: [{ type: "text", text: capText(`${statusLine(tool, ok)} ${message}${details}`) }],
    isError: !ok,
  };
}

export function withNote(outcome: ToolContent, note: string): ToolContent {
  const [first, ...rest] = outcome.content;
  if (first?.type !== "text")
    return { ...outcome, content: [{ type: "text", text: note }, ...outcome.content] };
  return { ...outcome, content: [{ type: "text", text: `${first.text}\n${note}` }, ...rest] };
}

const TREE_LINE = /^\s*\[(\d+)\]\s+\S+(?:\s+"((?:[^"\\]|\\.)*)")?/;

/** ref -> accessible name, from a tree's text (used to label click_ax for the submit guard). */
export function refNamesFromTree(tree: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const line of tree.split("\n")) {
    const match = TREE_LINE.exec(line);
    if (match?.[1]) names.set(match[1], match[2] ?? "");
  }
  return names;
}

/** The page refused a submit on validation (the guard forgets it so a fix may be resubmitted). */
export function isValidationRejection(result: PageResult): boolean {
  if (result.success === false) return true;
  const invalid = result.invalidFields;
  return Array.isArray(invalid) && invalid.length > 0;
}
