/**
 * The trace format: one run of the agent as JSON lines, the same in the add-on (IndexedDB,
 * export/import files) and the runner (`webbrain run --trace FILE`).
 *
 * Format, version 2 (`TRACE_FORMAT_VERSION`; version 1 files have no `shot` and still load). Every line is one JSON object with `v` (the
 * format version), `type`, and `at` (ISO time). The first line is `run_start`, the last is
 * `run_end` (a file without it is an unfinished run). Types:
 *   run_start   {runId, task, mode, url, provider?, model?, verbose}
 *   model_call  {step, ms, input, output, stopReason, request?}   request only in Deep verbose
 *   plan        {plan}                                             Plan before Act's plan
 *   tool_call   {id, name, args, ok, ms, result, url, target?, images?}
 *                 result: the structured page/tool result (capped); target: what a ref_id
 *                 pointed at when the call ran (role, name, where), so a workflow can find it
 *                 again; images: screenshots the model saw (base64, capped per run);
 *                 shot (v2, opt-in): the page just before the call acted, as a small JPEG, with
 *                 the box of the element it acted on (see TraceShot)
 *   note        {text}                                              nudges, guard refusals
 *   run_end     {status, text, steps, error?}
 * Readers ignore unknown fields and unknown record types, so later versions may add both;
 * a reader refuses a version newer than it knows, with a message that says so.
 */
import type { Plan } from "../loop/planner.js";
import type { TargetDescriptor } from "../workflows/workflow-target.js";

export const TRACE_FORMAT_VERSION = 2;

/** A tool result kept in a trace is cut past this many characters of JSON. */
export const TRACE_RESULT_MAX_CHARS = 4000;

export interface TraceRunStart {
  v: number;
  type: "run_start";
  at: string;
  runId: string;
  task: string;
  mode: string;
  url: string;
  provider?: string;
  model?: string;
  verbose: "normal" | "verbose" | "deep";
  /** Per-step screenshots were on, each at most this many bytes (v2). */
  shots?: { maxBytes: number };
}

export interface TraceModelCall {
  v: number;
  type: "model_call";
  at: string;
  step: number;
  ms: number;
  input: number;
  output: number;
  stopReason: string;
  /** The request sent (system prompt, messages, tool names): Deep verbose only. */
  request?: unknown;
}

export interface TracePlan {
  v: number;
  type: "plan";
  at: string;
  plan: Plan;
}

export interface TraceImage {
  mimeType: string;
  dataBase64: string;
}

/** A rectangle in CSS pixels of the viewport. */
export interface TraceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The page as a step found it (v2): a viewport screenshot taken just before the call acted,
 * and where the element it acted on was. `box` and `viewport` are CSS pixels, so a viewer
 * draws the box as a fraction of the viewport whatever the image's pixel size.
 */
export interface TraceShot {
  mimeType: string;
  dataBase64: string;
  /** The image's size in bytes (what it costs to keep). */
  bytes: number;
  viewport?: { width: number; height: number };
  box?: TraceBox;
}

export interface TraceToolCall {
  v: number;
  type: "tool_call";
  at: string;
  id: string;
  name: string;
  args: Record<string, unknown>;
  ok: boolean;
  ms: number;
  /** What the model read for this call, cut to TRACE_RESULT_MAX_CHARS. */
  text: string;
  /** The structured result (page result or tool details), when there is one. */
  result?: Record<string, unknown>;
  /** The tab's URL when the call ran. */
  url: string;
  target?: TargetDescriptor;
  images?: TraceImage[];
  /** The page before the call acted (v2, with `--trace-shots` or the add-on's setting). */
  shot?: TraceShot;
}

export interface TraceNote {
  v: number;
  type: "note";
  at: string;
  text: string;
}

export interface TraceRunEnd {
  v: number;
  type: "run_end";
  at: string;
  status: string;
  text: string;
  steps: number;
  error?: { kind: string; message: string };
}

export type TraceRecord =
  | TraceRunStart
  | TraceModelCall
  | TracePlan
  | TraceToolCall
  | TraceNote
  | TraceRunEnd;

export class TraceFormatError extends Error {
  override name = "TraceFormatError";
}

const KNOWN_TYPES = new Set(["run_start", "model_call", "plan", "tool_call", "note", "run_end"]);

/**
 * Parses a trace file's text. Unknown record types are skipped (a newer writer); a line that is
 * not JSON, a record without `v`/`type`, or a version newer than this reader is a
 * TraceFormatError naming the line.
 */
export function parseTrace(text: string): TraceRecord[] {
  const records: TraceRecord[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new TraceFormatError(`Line ${i + 1} of the trace is not JSON; is this a WebBrain trace file?`);
    }
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      throw new TraceFormatError(`Line ${i + 1} of the trace is not a JSON object.`);
    }
    const record = value as { v?: unknown; type?: unknown };
    if (typeof record.v !== "number" || typeof record.type !== "string") {
      throw new TraceFormatError(
        `Line ${i + 1} has no "v" (format version) or "type": this is not a WebBrain trace (format ${TRACE_FORMAT_VERSION}). Record a new one with tracing on.`,
      );
    }
    if (record.v > TRACE_FORMAT_VERSION) {
      throw new TraceFormatError(
        `Line ${i + 1} is trace format ${record.v}; this WebBrain reads up to ${TRACE_FORMAT_VERSION}. Update WebBrain to read it.`,
      );
    }
    if (KNOWN_TYPES.has(record.type)) records.push(value as TraceRecord);
  }
  if (records[0]?.type !== "run_start") {
    throw new TraceFormatError(
      "The trace does not start with a run_start record; the file is cut or not a trace.",
    );
  }
  return records;
}

export function serializeTrace(records: readonly TraceRecord[]): string {
  return records.map((record) => JSON.stringify(record)).join("\n") + (records.length ? "\n" : "");
}

/** What a list of traces shows per run (and filters on). */
export interface TraceSummary {
  runId: string;
  task: string;
  mode: string;
  url: string;
  /** The host of the page the run started on ("" when none). */
  site: string;
  startedAt: string;
  /** run_end's status, or "unfinished". */
  outcome: string;
  toolCalls: number;
  modelCalls: number;
  tokens: { input: number; output: number };
  durationMs: number;
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

export function summarizeTrace(records: readonly TraceRecord[]): TraceSummary {
  const start = records[0] as TraceRunStart;
  const end = records.findLast((r): r is TraceRunEnd => r.type === "run_end");
  const models = records.filter((r): r is TraceModelCall => r.type === "model_call");
  const firstUrl = records.find((r): r is TraceToolCall => r.type === "tool_call" && r.url !== "")?.url;
  const url = start.url || firstUrl || "";
  const last = records.at(-1);
  return {
    runId: start.runId,
    task: start.task,
    mode: start.mode,
    url,
    site: hostOf(url),
    startedAt: start.at,
    outcome: end?.status ?? "unfinished",
    toolCalls: records.filter((r) => r.type === "tool_call").length,
    modelCalls: models.length,
    tokens: {
      input: models.reduce((sum, m) => sum + m.input, 0),
      output: models.reduce((sum, m) => sum + m.output, 0),
    },
    durationMs: last ? Date.parse(last.at) - Date.parse(start.at) : 0,
  };
}
