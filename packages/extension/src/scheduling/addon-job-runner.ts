/**
 * Runs scheduled jobs in the add-on through the RunManager, so a scheduled run is a run like
 * any other: journaled, in that tab's chat (its opening message marked as scheduled), with
 * Stop, prompts and traces.
 *
 * Invariants (spec 000):
 * - A URL-target task runs in a tab already showing that URL, which is not activated, or else in
 *   a new tab opened inactive; the user's current tab is never taken over.
 * - A `current_tab` job runs only while the tab that scheduled it exists.
 * - `run` resolves when the run has ended (its `run_end`), with the run's last words and the
 *   job state it leaves: a question (clarify) needs the user's input, a run stopped before
 *   finishing (step limit, Stop, a guard) is paused until Continue, only an answer completes.
 * - A scheduled run is unattended: a hand-over to a person (pause_for_user) notifies them and
 *   waits a bounded time; when nobody came, the job needs the user, and its result says why.
 * - A workflow job replays in a new tab opened inactive (`WorkflowJobPorts.replay`), asks the
 *   agent only where the replay stops and only when the job allows it (agent's runWorkflowJob):
 *   that run is a run like the others, in the replay's tab, and its trace is the repair's steps;
 *   a repair's next version is saved where the add-on keeps workflows.
 */

import {
  type JobRunner,
  type JobRunOutcome,
  parseWorkflow,
  type ReplayResult,
  runWorkflowJob,
  type ScheduledJob,
  serializeWorkflow,
  type TraceRecord,
  type Workflow,
} from "@webbrain/agent";
import { handoverRun, type RunStarter, runToEnd } from "../background/workflow-handover.js";
import type { WorkflowRunAnswer } from "../background/workflow-runner.js";
import { t } from "../shared/i18n.js";
import type { RunEvent } from "../shared/run-events.js";

/** The part of browser.tabs it needs. */
export interface JobTabs {
  get(tabId: number): Promise<browser.tabs.Tab>;
  query(info: Record<string, never>): Promise<browser.tabs.Tab[]>;
  create(props: { url: string; active: boolean }): Promise<browser.tabs.Tab>;
}

/** What a workflow job needs besides runs: the replay, the runs' traces, the saved list. */
export interface WorkflowJobPorts {
  /** Replays in a new inactive tab on `url` ("" = the workflow's start page), unattended. */
  replay(workflow: Workflow, params: Record<string, string>, url: string): Promise<WorkflowRunAnswer>;
  /** The tab's last finished run's trace (run-hooks.ts). */
  lastTrace(tabId: string): readonly TraceRecord[] | undefined;
  /** Keeps the repaired `next` version in place of `old` in the saved workflows. */
  saveRepaired(old: Workflow, next: Workflow): Promise<void>;
}

const TAB_LOAD_TIMEOUT_MS = 30_000;
const TAB_LOAD_POLL_MS = 100;

function sameUrl(a: string | undefined, b: string): boolean {
  if (!a) return false;
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

/** The job state a finished run leaves (see the header). */
export function jobStatusOf(end: Extract<RunEvent, { kind: "run_end" }>): JobRunOutcome["status"] {
  if (end.status === "error") return "failed";
  if (end.needsPerson) return "needs_user_input";
  if (end.status === "stopped") return "paused";
  return end.ending === "clarify" ? "needs_user_input" : "completed";
}

export class AddonJobRunner implements JobRunner {
  constructor(
    private readonly runs: RunStarter,
    private readonly tabs: JobTabs,
    private readonly workflows?: WorkflowJobPorts,
  ) {}

  isBusy(job: ScheduledJob): boolean {
    const tabId = job.target.type === "url" ? job.lastTabId : job.ownerTabId;
    return tabId !== undefined && this.runs.isRunning(tabId);
  }

  async run(job: ScheduledJob): Promise<JobRunOutcome> {
    if (job.kind === "workflow") return this.runWorkflowJob(job);
    const tabId = await this.targetTab(job);
    const shownAs =
      job.kind === "resume" ? t("jobResumeOpening", job.title) : t("jobRunOpening", job.title, job.prompt);
    const { end, text } = await runToEnd(this.runs, tabId, job.prompt, job.mode, {
      shownAs,
      unattended: true,
    });
    return { status: jobStatusOf(end), text, tabId };
  }

  private async runWorkflowJob(job: ScheduledJob): Promise<JobRunOutcome> {
    const ports = this.workflows;
    if (!ports || !job.workflow) throw new Error(t("jobWorkflowMissing"));
    const workflow = parseWorkflow(job.workflow.text);
    const url = job.target.type === "url" ? job.target.url : "";
    let tabId: string | undefined;
    const run = await runWorkflowJob(workflow, job.workflow.params, {
      replay: async (replayed, params): Promise<ReplayResult> => {
        const answer = await ports.replay(replayed, params, url);
        if (answer.status === "error")
          return { status: "stopped", step: 0, reason: answer.reason, completed: 0 };
        if (answer.tabId !== undefined) tabId = String(answer.tabId);
        const { tabId: _tab, ...result } = answer;
        return result;
      },
      ...(job.workflow.handover
        ? {
            handover: async (task: string, stopped: { step: number; reason: string }) => {
              // Refused before a tab opened (a send on a protected route): nothing to finish on.
              if (tabId === undefined)
                return { status: "stopped" as const, text: stopped.reason, records: [] };
              return handoverRun(this.runs, (tab) => ports.lastTrace(tab), tabId, task, {
                shownAs: t("workflowHandoverShownAs", workflow.name, stopped.step),
                unattended: true,
              });
            },
          }
        : {}),
    });
    if (run.repaired) await ports.saveRepaired(workflow, run.repaired);
    return {
      status: run.status,
      text: run.text,
      replay: run.report,
      ...(tabId !== undefined ? { tabId } : {}),
      ...(run.repaired ? { workflow: serializeWorkflow(run.repaired) } : {}),
    };
  }

  private async targetTab(job: ScheduledJob): Promise<string> {
    if (job.target.type === "current_tab") {
      const tab = await this.tabs.get(Number(job.ownerTabId)).catch(() => undefined);
      if (!tab) throw new Error(t("jobOwnerTabClosed"));
      return job.ownerTabId;
    }
    const url = job.target.url;
    const existing = (await this.tabs.query({})).find((tab) => sameUrl(tab.url, url));
    // An existing tab is used as it is: not activated, not reloaded.
    if (existing?.id !== undefined) return String(existing.id);
    const created = await this.tabs.create({ url, active: false });
    if (created.id === undefined) throw new Error(t("jobPageDidNotLoad", url));
    await this.loaded(created.id, url);
    return String(created.id);
  }

  private async loaded(tabId: number, url: string): Promise<void> {
    const deadline = Date.now() + TAB_LOAD_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const tab = await this.tabs.get(tabId).catch(() => undefined);
      if (!tab) break;
      if (tab.status === "complete" && tab.url !== "about:blank") return;
      await new Promise((resolve) => setTimeout(resolve, TAB_LOAD_POLL_MS));
    }
    throw new Error(t("jobPageDidNotLoad", url));
  }
}
