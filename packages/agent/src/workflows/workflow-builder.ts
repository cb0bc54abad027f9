/**
 * A saved workflow from a finished run's trace: its successful actions, in order, with refs
 * replaced by what they pointed at and typed values turned into parameters.
 *
 * Invariant: a run whose action cannot be described (a ref the trace never saw in a tree) is
 * refused as a whole, with the step named; a workflow with a hole in it would act on the wrong
 * thing later.
 */
import { isSecretResult, SECRET_PLACEHOLDER } from "../guards/secret-values.js";
import { toolSpec } from "../tools/tool-catalog.js";
import { summarizeTrace, type TraceRecord, type TraceToolCall } from "../traces/trace-format.js";
import {
  WORKFLOW_FORMAT_VERSION,
  type Workflow,
  WorkflowError,
  type WorkflowExpect,
  type WorkflowParam,
  type WorkflowStep,
} from "./workflow-format.js";

/**
 * Whether a workflow repeats the tool (its declared `replay`). Reading and waiting tools declare
 * none: replay reads the page itself and lets it settle after every click.
 */
function isReplayed(tool: string): boolean {
  return toolSpec(tool)?.replay !== undefined;
}

/** A call that typed into a secret field: its trace holds the placeholder, never the text. */
function typedSecret(call: TraceToolCall, typedArg: string): boolean {
  return isSecretResult(call.result) || call.args[typedArg] === SECRET_PLACEHOLDER;
}

export interface WorkflowSaveOptions {
  name?: string;
  /** Parameter names the user chose: name -> the value that was typed in the run. */
  paramNames?: Record<string, string>;
  now?: () => number;
}

function slug(text: string): string {
  const base = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return base || "value";
}

function effectOf(call: TraceToolCall): WorkflowExpect | undefined {
  const effect = call.result?.effect;
  const typedArg = toolSpec(call.name)?.typedArg;
  if (typedArg && typeof call.args[typedArg] === "string") return { value: call.args[typedArg] as string };
  if (!effect || typeof effect !== "object" || Array.isArray(effect)) return undefined;
  const report = effect as { changed?: unknown; changes?: unknown };
  const changes = Array.isArray(report.changes) ? report.changes.map(String) : [];
  return {
    changed: report.changed === true,
    urlChanged: changes.some((change) => change.startsWith("url changed")),
  };
}

/** The successful calls of a run that a workflow repeats, in order. */
export function replayedCalls(records: readonly TraceRecord[]): TraceToolCall[] {
  return records.filter((r): r is TraceToolCall => r.type === "tool_call" && r.ok && isReplayed(r.name));
}

/**
 * How typed values become parameters while steps are built: `byValue` names a typed value's
 * parameter (the user's names, or a workflow's own values when a repair extends it), `params`
 * gets the new ones, `used` holds every name taken.
 */
export interface ParamNaming {
  byValue: Map<string, string>;
  params: WorkflowParam[];
  used: Set<string>;
}

/** Steps for `calls`, each target kept and each typed value a `{{parameter}}` (see ParamNaming). */
export function stepsFromCalls(calls: readonly TraceToolCall[], naming: ParamNaming): WorkflowStep[] {
  const { byValue, params, used } = naming;
  return calls.map((call, index) => {
    const args: Record<string, unknown> = { ...call.args };
    delete args.ref_id;
    delete args._allowResubmit;
    const hasRef = call.args.ref_id !== undefined;
    if (hasRef && !call.target) {
      throw new WorkflowError(
        `Step ${index + 1} (${call.name} on ref ${String(call.args.ref_id)}) has no recorded target: the run acted on a ref it had not read in a tree, so replay could not find it again.`,
      );
    }
    const typedArg = toolSpec(call.name)?.typedArg;
    const typed = typedArg ? call.args[typedArg] : undefined;
    if (typedArg && typeof typed === "string" && typedSecret(call, typedArg)) {
      // A secret gets a parameter of its own with no default: every replay asks for it.
      const field = call.target?.name ?? String(call.args.selector ?? typedArg);
      let name = slug(field);
      for (let n = 2; used.has(name); n++) name = `${slug(field)}_${n}`;
      used.add(name);
      params.push({ name, default: "", field, secret: true });
      args[typedArg] = `{{${name}}}`;
    } else if (typedArg && typeof typed === "string") {
      const field = call.target?.name ?? String(call.args.selector ?? call.args.text ?? typedArg);
      let name = byValue.get(typed) ?? slug(field);
      if (!byValue.has(typed)) for (let n = 2; used.has(name); n++) name = `${slug(field)}_${n}`;
      if (!used.has(name)) {
        used.add(name);
        params.push({ name, default: typed, field });
      }
      args[typedArg] = `{{${name}}}`;
    }
    const expect = effectOf(call);
    const step: WorkflowStep = { tool: call.name, args, url: call.url };
    if (call.target) step.target = call.target;
    if (expect)
      step.expect = typedArg && typeof typed === "string" ? { value: args[typedArg] as string } : expect;
    return step;
  });
}

export function workflowFromTrace(
  records: readonly TraceRecord[],
  options: WorkflowSaveOptions = {},
): Workflow {
  const summary = summarizeTrace(records);
  if (summary.outcome !== "done" && summary.outcome !== "answered") {
    throw new WorkflowError(
      `Run ${summary.runId} ended "${summary.outcome}", not done: save a workflow from a run that finished its task.`,
    );
  }
  const calls = replayedCalls(records);
  if (calls.length === 0)
    throw new WorkflowError(`Run ${summary.runId} did nothing on the page; there is nothing to replay.`);

  const byValue = new Map<string, string>();
  for (const [name, value] of Object.entries(options.paramNames ?? {})) {
    if (!/^[a-zA-Z0-9_]+$/.test(name)) {
      throw new WorkflowError(`Parameter name "${name}" may use only letters, digits and _.`);
    }
    byValue.set(value, name);
  }
  const params: WorkflowParam[] = [];
  const used = new Set<string>();
  const steps = stepsFromCalls(calls, { byValue, params, used });
  const unused = [...byValue].filter(([, name]) => !used.has(name));
  if (unused.length) {
    const typedValues =
      params
        .filter((p) => !p.secret)
        .map((p) => JSON.stringify(p.default))
        .join(", ") || "none";
    throw new WorkflowError(
      `No value typed in the run was ${unused.map(([value]) => JSON.stringify(value)).join(", ")} (typed values: ${typedValues}); name a parameter after a value the run typed.`,
    );
  }
  return {
    webbrainWorkflow: WORKFLOW_FORMAT_VERSION,
    name: options.name?.trim() || summary.task.slice(0, 80),
    goal: summary.task,
    createdAt: new Date((options.now ?? Date.now)()).toISOString(),
    fromRun: summary.runId,
    startUrl: calls[0]?.url || summary.url,
    params,
    steps,
  };
}
