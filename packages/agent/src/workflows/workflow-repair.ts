/**
 * Repair and save: a replay that stopped and that the agent then finished (handover) becomes
 * the workflow's next version, so the next replay needs no model. The steps the replay did
 * stay; from the stopping step on, the steps are the agent's successful actions from its trace
 * (workflow-builder.ts turns them into steps, as `workflow save` does).
 *
 * Invariants:
 * - The old version is kept whole in `previous`; the new one says where and why it was repaired
 *   (`repair`) and marks the steps it wrote (`repaired`: its version number).
 * - A step a repair wrote that stops a replay again is not rewritten: the outcome says so. A page
 *   that keeps changing under the same step needs a person to look, not another silent guess.
 * - The agent's run must have finished (done or answered) and acted on the page. A value it
 *   typed that the replay used becomes that parameter again; a new value becomes a new
 *   parameter; a secret stays a secret parameter with no value stored.
 */
import type { TraceRecord } from "../traces/trace-format.js";
import { type ParamNaming, replayedCalls, stepsFromCalls } from "./workflow-builder.js";
import {
  resolveParams,
  WORKFLOW_FORMAT_VERSION,
  type Workflow,
  WorkflowError,
  type WorkflowParam,
  type WorkflowStep,
  type WorkflowVersion,
  workflowVersionNumber,
} from "./workflow-format.js";
import type { ReplayResult } from "./workflow-replay.js";

export type RepairOutcome =
  | {
      saved: true;
      workflow: Workflow;
      version: number;
      /** 1-based number of the first step the repair wrote. */
      step: number;
      /** How many recorded steps it replaced, and how many steps it wrote instead. */
      replaced: number;
      written: number;
    }
  | { saved: false; step: number; reason: string };

export interface RepairOptions {
  /** The parameter values the replay was given (secrets are never used for naming). */
  params?: Record<string, string>;
  now?: () => number;
}

type Stopped = Extract<ReplayResult, { status: "stopped" }>;

function isFinished(records: readonly TraceRecord[]): boolean {
  const end = records.findLast((r) => r.type === "run_end");
  return end?.type === "run_end" && (end.status === "done" || end.status === "answered");
}

/** The parameters any step still types: a parameter no step uses is dropped. */
function usedParams(params: readonly WorkflowParam[], steps: readonly WorkflowStep[]): WorkflowParam[] {
  const text = JSON.stringify(steps.map((step) => step.args));
  return params.filter((param) => text.includes(`{{${param.name}}}`));
}

function snapshot(workflow: Workflow): WorkflowVersion {
  return {
    version: workflowVersionNumber(workflow),
    createdAt: workflow.createdAt,
    fromRun: workflow.fromRun,
    params: workflow.params,
    steps: workflow.steps,
    ...(workflow.repair ? { repair: workflow.repair } : {}),
  };
}

/**
 * The workflow's next version from a stopped replay and the agent's run that finished it
 * (`records`: its trace), or why none is saved.
 */
export function repairWorkflow(
  workflow: Workflow,
  stopped: Stopped,
  records: readonly TraceRecord[],
  options: RepairOptions = {},
): RepairOutcome {
  const step = stopped.step;
  const failing = workflow.steps[step - 1];
  if (step < 1 || !failing) {
    return { saved: false, step, reason: `the replay stopped before step 1 (${stopped.reason})` };
  }
  if (failing.repaired !== undefined) {
    return {
      saved: false,
      step,
      reason: `step ${step} was written by the repair in version ${failing.repaired} and failed again (${stopped.reason}); it is not rewritten again: check the page, then record the workflow anew`,
    };
  }
  if (!isFinished(records)) {
    return { saved: false, step, reason: "the agent did not finish the task, so there is nothing to keep" };
  }
  const calls = replayedCalls(records);
  if (calls.length === 0) {
    return { saved: false, step, reason: "the agent did nothing on the page, so there is nothing to keep" };
  }
  const values = resolveParams(workflow, options.params ?? {}, { secretsOptional: true });
  const secrets = new Set(workflow.params.filter((p) => p.secret).map((p) => p.name));
  const naming: ParamNaming = {
    byValue: new Map(
      Object.entries(values)
        .filter(([name, value]) => !secrets.has(name) && value !== "")
        .map(([name, value]) => [value, name]),
    ),
    params: [],
    used: new Set(workflow.params.map((p) => p.name)),
  };
  let written: WorkflowStep[];
  try {
    written = stepsFromCalls(calls, naming);
  } catch (error) {
    if (error instanceof WorkflowError) return { saved: false, step, reason: error.message };
    throw error;
  }
  const version = workflowVersionNumber(workflow) + 1;
  const kept = workflow.steps.slice(0, stopped.completed);
  const steps = [...kept, ...written.map((s) => ({ ...s, repaired: version }))];
  const start = records[0];
  const fromRun = start?.type === "run_start" ? start.runId : "";
  const repaired: Workflow = {
    ...workflow,
    webbrainWorkflow: WORKFLOW_FORMAT_VERSION,
    createdAt: new Date((options.now ?? Date.now)()).toISOString(),
    fromRun,
    params: usedParams([...workflow.params, ...naming.params], steps),
    steps,
    version,
    repair: { step, reason: stopped.reason, fromRun },
    previous: [...(workflow.previous ?? []), snapshot(workflow)],
  };
  return {
    saved: true,
    workflow: repaired,
    version,
    step: kept.length + 1,
    replaced: workflow.steps.length - kept.length,
    written: written.length,
  };
}
