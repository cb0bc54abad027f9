/**
 * A run's timeline from its trace records: the same steps for the add-on's traces page (which
 * renders them expandable) and `webbrain trace show FILE` (which prints them as text).
 */

import { typedValue } from "../guards/secret-values.js";
import { planAsText } from "../loop/planner.js";
import { formatTarget } from "../workflows/workflow-target.js";
import { summarizeTrace, type TraceRecord, type TraceShot } from "./trace-format.js";

export interface TimelineStep {
  /** Milliseconds since the run started. */
  offsetMs: number;
  kind: "model" | "tool" | "plan" | "note" | "end";
  /** One line: what happened. */
  title: string;
  ok: boolean;
  /** What the expanded step shows (arguments, result, request), as text. */
  detail: string;
  /** Screenshots the model saw at this step. */
  images: { mimeType: string; dataBase64: string }[];
  /** Tool steps: the page before the call acted, with the action's box (trace format 2). */
  shot?: TraceShot;
  /** Tool steps that typed: the text, as the trace kept it (a secret is SECRET_PLACEHOLDER). */
  typed?: string;
}

const ARG_PREVIEW_CHARS = 80;

function argsPreview(args: Record<string, unknown>): string {
  const json = JSON.stringify(args);
  return json.length > ARG_PREVIEW_CHARS ? `${json.slice(0, ARG_PREVIEW_CHARS)}…` : json;
}

export function traceTimeline(records: readonly TraceRecord[]): TimelineStep[] {
  const start = Date.parse(records[0]?.at ?? "");
  const steps: TimelineStep[] = [];
  for (const record of records) {
    const offsetMs = Date.parse(record.at) - start;
    switch (record.type) {
      case "model_call":
        steps.push({
          offsetMs,
          kind: "model",
          title: `model call (step ${record.step}): ${record.input} in / ${record.output} out tokens, ${record.ms} ms, ${record.stopReason}`,
          ok: true,
          detail: record.request ? JSON.stringify(record.request, null, 2) : "",
          images: [],
        });
        break;
      case "tool_call":
        steps.push({
          offsetMs,
          kind: "tool",
          title: `${record.name} ${argsPreview(record.args)} ${record.ok ? "ok" : "failed"} (${record.ms} ms)${record.target ? ` on ${formatTarget(record.target)}` : ""}`,
          ok: record.ok,
          detail: [
            `arguments: ${JSON.stringify(record.args, null, 2)}`,
            record.url ? `page: ${record.url}` : "",
            `result: ${record.result ? JSON.stringify(record.result, null, 2) : record.text}`,
          ]
            .filter(Boolean)
            .join("\n"),
          images: record.images ?? [],
          ...(record.shot ? { shot: record.shot } : {}),
          ...(typedValue(record.name, record.args) !== undefined
            ? { typed: typedValue(record.name, record.args)! }
            : {}),
        });
        break;
      case "plan":
        steps.push({
          offsetMs,
          kind: "plan",
          title: "plan",
          ok: true,
          detail: planAsText(record.plan),
          images: [],
        });
        break;
      case "note":
        steps.push({ offsetMs, kind: "note", title: record.text, ok: true, detail: "", images: [] });
        break;
      case "run_end":
        steps.push({
          offsetMs,
          kind: "end",
          title: `${record.status} after ${record.steps} model turns`,
          ok: record.status === "done" || record.status === "answered",
          detail: record.error
            ? `${record.text}\n(${record.error.kind}: ${record.error.message})`
            : record.text,
          images: [],
        });
        break;
      default:
        break;
    }
  }
  return steps;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1).padStart(6)}s`;
}

/** The timeline as text: a header, then one line per step with its detail indented below. */
export function formatTimeline(records: readonly TraceRecord[], options: { details?: boolean } = {}): string {
  const summary = summarizeTrace(records);
  const lines = [
    `Run ${summary.runId}: ${JSON.stringify(summary.task)}`,
    `  mode ${summary.mode}; site ${summary.site || "(none)"}; started ${summary.startedAt}; outcome ${summary.outcome}`,
    `  ${summary.modelCalls} model calls (${summary.tokens.input} in / ${summary.tokens.output} out tokens), ${summary.toolCalls} tool calls, ${(summary.durationMs / 1000).toFixed(1)} s`,
    "",
  ];
  for (const step of traceTimeline(records)) {
    const mark = step.ok ? " " : "!";
    lines.push(`${seconds(step.offsetMs)} ${mark} ${step.title}`);
    if (options.details && step.detail) {
      for (const line of step.detail.split("\n")) lines.push(`           ${line}`);
    }
    if (step.images.length)
      lines.push(`           (${step.images.length} screenshot${step.images.length > 1 ? "s" : ""})`);
    if (step.shot) lines.push(`           (step screenshot, ${step.shot.bytes} bytes)`);
  }
  return `${lines.join("\n")}\n`;
}
