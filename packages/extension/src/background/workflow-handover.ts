/**
 * The agent finishing a stopped replay, for both ways a replay runs in the add-on: a scheduled
 * workflow job (scheduling/addon-job-runner.ts) and the workflow panel's "Let the agent finish"
 * after a Run (WORKFLOW_HANDOVER_MESSAGE on the panel's workflow port).
 *
 * Invariants:
 * - The agent's run is a run like any other (RunManager): in the replay's tab, journaled, with
 *   that tab's prompts; it resolves here only once its `run_end` came, with the run's trace
 *   (run-hooks.ts keeps the tab's last one, written before `run_end` is sent).
 * - A finished run's actions become the workflow's next version through the agent's
 *   repairAfterHandover (the scheduled path's code too), saved by `saveRepaired` in place of the
 *   old one (workflow-library.ts replaceWorkflow). A repair that cannot be saved (the agent did
 *   not finish, or a step a repair wrote failed again) leaves the saved workflow as it was.
 * - The panel may close while the agent works: the repair is saved all the same.
 */
import {
  type HandoverRun,
  handoverTask,
  parseWorkflow,
  repairAfterHandover,
  type TraceRecord,
  type Workflow,
} from "@webbrain/agent";
import type { Mode } from "@webbrain/protocol";
import { t } from "../shared/i18n.js";
import type { JournalEntry, RunEvent } from "../shared/run-events.js";

export const WORKFLOW_HANDOVER_MESSAGE = "webbrain_workflow_handover";

/** The part of RunManager a handover (and a scheduled run) needs. */
export interface RunStarter {
  isRunning(tabId: string): boolean;
  start(
    tabId: string,
    text: string,
    mode: Mode,
    options?: { shownAs?: string; unattended?: boolean; interactive?: boolean },
  ): Promise<{ runId: string }>;
  onEvent(listener: (tabId: string, entry: JournalEntry) => void): () => void;
}

export type RunEnd = Extract<RunEvent, { kind: "run_end" }>;

/** The panel lets the agent finish a replay that stopped (in the replay's tab). */
export interface WorkflowHandoverMessage {
  type: typeof WORKFLOW_HANDOVER_MESSAGE;
  tabId: number;
  /** The workflow file's text, as the replay ran it. */
  workflow: string;
  params: Record<string, string>;
  stopped: { step: number; reason: string; completed: number };
}

/**
 * What the background answers on the port: `started` once the agent's run is under way, then
 * one of the others when it has ended.
 */
export type WorkflowHandoverAnswer =
  | { status: "started" }
  | { status: "saved"; version: number; step: number }
  | { status: "not_saved"; reason: string }
  | { status: "error"; reason: string };

export function isHandoverMessage(value: unknown): value is WorkflowHandoverMessage {
  const record = value as Partial<WorkflowHandoverMessage> | null;
  return typeof record === "object" && record !== null && record.type === WORKFLOW_HANDOVER_MESSAGE;
}

/**
 * Starts a run in `tabId` and resolves when it has ended, with its last words. `onStarted` is
 * called once the run is under way.
 */
export async function runToEnd(
  runs: RunStarter,
  tabId: string,
  prompt: string,
  mode: Mode,
  options: { shownAs: string; unattended?: boolean; interactive?: boolean },
  onStarted: () => void = () => {},
): Promise<{ end: RunEnd; text: string }> {
  let lastWords = "";
  let unsubscribe = () => {};
  const ended = new Promise<{ end: RunEnd; text: string }>((resolve) => {
    unsubscribe = runs.onEvent((eventTab, entry) => {
      if (eventTab !== tabId) return;
      const event = entry.event;
      if (event.kind === "item" && (event.item.kind === "assistant" || event.item.kind === "error")) {
        lastWords = event.item.text;
      }
      if (event.kind === "run_end") {
        // Waiting in vain for a person is the news, whatever the model said before.
        const text = (event.needsPerson ? event.message : lastWords) || event.message || event.status;
        resolve({ end: event, text });
      }
    });
  });
  try {
    await runs.start(tabId, prompt, mode, options);
  } catch (error) {
    unsubscribe();
    throw new Error(t("jobRunDidNotStart", error instanceof Error ? error.message : String(error)));
  }
  onStarted();
  try {
    return await ended;
  } finally {
    unsubscribe();
  }
}

/** The agent's run on `task` in the replay's tab, as the repair reads it: its ending and trace. */
export async function handoverRun(
  runs: RunStarter,
  lastTrace: (tabId: string) => readonly TraceRecord[] | undefined,
  tabId: string,
  task: string,
  options: { shownAs: string; unattended?: boolean; interactive?: boolean },
  onStarted?: () => void,
): Promise<HandoverRun> {
  const { end, text } = await runToEnd(runs, tabId, task, "act", options, onStarted);
  return {
    status: end.ending ?? (end.status === "done" ? "done" : "error"),
    text,
    records: lastTrace(tabId) ?? [],
  };
}

export interface HandoverDeps {
  runs: RunStarter;
  lastTrace(tabId: string): readonly TraceRecord[] | undefined;
  /** Keeps the repaired `next` version in place of `old` in the saved workflows. */
  saveRepaired(old: Workflow, next: Workflow): Promise<void>;
}

/** "Let the agent finish": the agent's run, then the repair saved or the reason it was not. */
export async function finishStoppedReplay(
  deps: HandoverDeps,
  message: WorkflowHandoverMessage,
  onStarted: () => void,
): Promise<WorkflowHandoverAnswer> {
  try {
    const workflow = parseWorkflow(message.workflow);
    const stopped = { status: "stopped" as const, ...message.stopped };
    const run = await handoverRun(
      deps.runs,
      (tabId) => deps.lastTrace(tabId),
      String(message.tabId),
      handoverTask(workflow, stopped, message.params),
      { shownAs: t("workflowHandoverShownAs", workflow.name, stopped.step), interactive: true },
      onStarted,
    );
    const outcome = repairAfterHandover(workflow, stopped, message.params, run);
    if (outcome.repaired && outcome.repair?.saved) {
      await deps.saveRepaired(workflow, outcome.repaired);
      return { status: "saved", version: outcome.repair.version, step: outcome.repair.step };
    }
    if (outcome.repair && !outcome.repair.saved)
      return { status: "not_saved", reason: outcome.repair.reason };
    return { status: "not_saved", reason: t("workflowAgentDidNotFinish", run.status, run.text) };
  } catch (error) {
    return { status: "error", reason: error instanceof Error ? error.message : String(error) };
  }
}
