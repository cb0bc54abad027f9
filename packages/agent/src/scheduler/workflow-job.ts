/**
 * One run of a workflow job (kind "workflow"): replay first, the agent only where the replay
 * stops and only when the job allows it, and the run's report: "replayed" (no model asked),
 * "repaired" (the agent finished it; its steps are the workflow's next version, from
 * workflow-repair.ts) or "failed", with the step. The runner's `webbrain run --job` and the
 * add-on's scheduler both run a workflow job here; each brings its own replay and agent.
 *
 * Invariants:
 * - The agent is asked only after a replay stopped at a step (not before the first one: a
 *   start page that would not open is no page for it to finish on), and only with `handover`.
 * - A repair that cannot be saved (the step a repair wrote failed again, the agent did nothing)
 *   is still "repaired" when the agent finished the task, without a `version`; the text says why.
 */
import type { RunStatus } from "../loop/agent-events.js";
import type { TraceRecord } from "../traces/trace-format.js";
import { type Workflow, WorkflowError } from "../workflows/workflow-format.js";
import { type RepairOutcome, repairWorkflow } from "../workflows/workflow-repair.js";
import { handoverTask, type ReplayResult } from "../workflows/workflow-replay.js";
import { formatTarget } from "../workflows/workflow-target.js";
import type { JobResult, WorkflowJobReport } from "./job.js";

/** How the agent's run that finished a stopped replay ended, and its trace (the repair's steps). */
export interface HandoverRun {
  status: RunStatus;
  text: string;
  records: readonly TraceRecord[];
}

export interface WorkflowJobSeams {
  /** Replays the workflow with these values (through the executor's gates). */
  replay(workflow: Workflow, params: Record<string, string>): Promise<ReplayResult>;
  /** Runs the agent on `task` in the replay's tab; absent: the job gives no handover. */
  handover?(task: string, stopped: Extract<ReplayResult, { status: "stopped" }>): Promise<HandoverRun>;
}

export interface WorkflowJobRun {
  status: JobResult["status"];
  /** One line for a person: what happened, and where it stopped or was repaired. */
  text: string;
  report: WorkflowJobReport;
  /** The workflow's next version, when a repair saved one. */
  repaired?: Workflow;
  /** What the replay answered (absent: the values did not fit the workflow). */
  replay?: ReplayResult;
  /** How the agent's run ended, and the repair made of it, when the replay was handed over. */
  handover?: { status: RunStatus; text: string };
  repair?: RepairOutcome;
}

/** A step as a person reads it: its tool and what it acted on. */
export function stepDescription(workflow: Workflow, step: number): string | undefined {
  const found = workflow.steps[step - 1];
  if (!found) return undefined;
  return `${found.tool}${found.target ? ` on ${formatTarget(found.target)}` : ""}`;
}

function stepLabel(workflow: Workflow, step: number): string {
  const description = stepDescription(workflow, step);
  return description ? `step ${step} (${description})` : `step ${step}`;
}

const FINISHED: ReadonlySet<RunStatus> = new Set(["done", "answered"]);

export async function runWorkflowJob(
  workflow: Workflow,
  params: Record<string, string>,
  seams: WorkflowJobSeams,
): Promise<WorkflowJobRun> {
  let replayed: ReplayResult;
  try {
    replayed = await seams.replay(workflow, params);
  } catch (error) {
    // A parameter the workflow lacks, a secret not given: the job cannot replay as scheduled.
    if (!(error instanceof WorkflowError)) throw error;
    return { status: "failed", text: `failed: ${error.message}`, report: { outcome: "failed" } };
  }
  if (replayed.status === "done") {
    return {
      status: "completed",
      text: `replayed: all ${replayed.steps} steps of "${workflow.name}"`,
      report: { outcome: "replayed" },
      replay: replayed,
    };
  }
  const where = replayed.step > 0 ? stepLabel(workflow, replayed.step) : "the start page";
  const description = stepDescription(workflow, replayed.step);
  const at = { step: replayed.step, ...(description ? { description } : {}) };
  if (!seams.handover || replayed.step === 0) {
    return {
      status: "failed",
      text: `failed at ${where}: ${replayed.reason}`,
      report: { outcome: "failed", ...at },
      replay: replayed,
    };
  }
  const run = await seams.handover(handoverTask(workflow, replayed, params), replayed);
  return repairAfterHandover(workflow, replayed, params, run);
}

/**
 * What a stopped replay that was handed over to the agent comes to: failed when the agent did
 * not finish, else repaired, with the next version when repairWorkflow could make one. The
 * add-on's "Let the agent finish" (a replay a person ran) ends here too.
 */
export function repairAfterHandover(
  workflow: Workflow,
  replayed: Extract<ReplayResult, { status: "stopped" }>,
  params: Record<string, string>,
  run: HandoverRun,
): WorkflowJobRun {
  const where = replayed.step > 0 ? stepLabel(workflow, replayed.step) : "the start page";
  const description = stepDescription(workflow, replayed.step);
  const at = { step: replayed.step, ...(description ? { description } : {}) };
  const handover = { status: run.status, text: run.text };
  if (!FINISHED.has(run.status)) {
    return {
      status: "failed",
      text: `failed at ${where}: ${replayed.reason}; the agent did not finish it either (${run.status}: ${run.text})`,
      report: { outcome: "failed", ...at },
      replay: replayed,
      handover,
    };
  }
  const repair = repairWorkflow(workflow, replayed, run.records, { params });
  const handedOver = { replay: replayed, handover, repair };
  if (!repair.saved) {
    return {
      status: "completed",
      text: `repaired from ${where}: the agent finished it (${run.text}), but no new version was saved: ${repair.reason}`,
      report: { outcome: "repaired", ...at },
      ...handedOver,
    };
  }
  return {
    status: "completed",
    text: `repaired from ${where} (${replayed.reason}): the agent finished it and version ${repair.version} was saved`,
    report: { outcome: "repaired", ...at, version: repair.version },
    repaired: repair.workflow,
    ...handedOver,
  };
}
