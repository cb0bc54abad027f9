/**
 * Scheduled jobs (spec 000 "Scheduled Tasks"): the data a job is, its lifecycle states and the
 * limits the scheduler enforces. Plain JSON so a job round-trips through any `Store`.
 *
 * Lifecycle (the original project's, kept so its documentation still reads true):
 *   pending -> running -> completed
 *   pending -> queued (its tab was busy when it came due; retried) -> running
 *   running -> needs_user_input (the run ended asking the user something: clarify)
 *   running -> paused (the run stopped before finishing: the step limit, Stop, a loop guard;
 *                      Continue in the run's tab picks it up)
 *   any live state -> cancelled | failed
 * A recurring job goes back to `pending` after each run with `nextRunAt` advanced, except after
 * a run that left it waiting on the user (`needs_user_input`, `paused`): it stays there until the
 * user cancels it, or `restore` queues it again.
 */
import type { Mode } from "@webbrain/protocol";
import type { JsonValue } from "../tools/browser-port.js";

/**
 * `resume`: continue this tab's conversation later. `task`: run a new task, maybe on a URL.
 * `workflow`: replay a saved workflow (the agent only where the replay stops, if allowed).
 */
export type JobKind = "resume" | "task" | "workflow";

export type JobState =
  | "pending"
  | "queued"
  | "running"
  | "needs_user_input"
  | "paused"
  | "completed"
  | "failed"
  | "cancelled";

/** States in which an alarm is (or must be) set for the job. */
export const WAITING_STATES: readonly JobState[] = ["pending", "queued"];
/** States where the job waits on the user: its last run asked a question or stopped unfinished. */
export const USER_STATES: readonly JobState[] = ["needs_user_input", "paused"];
/** States a job never leaves. */
export const TERMINAL_STATES: readonly JobState[] = ["completed", "failed", "cancelled"];

export type JobSchedule =
  | { type: "once"; runAt: number }
  | { type: "recurring"; intervalMinutes: number; firstRunAt: number };

/** `current_tab`: the tab that scheduled it. `url`: a tab showing this URL (opened inactive). */
export type JobTarget = { type: "current_tab" } | { type: "url"; url: string };

/** What a workflow job replays. */
export interface JobWorkflow {
  /**
   * The workflow file's text, embedded rather than referenced: the job runs the same steps after
   * a restart, and an exported job file runs where the add-on's saved list is not.
   */
  text: string;
  /** Parameter values for the replay (a secret parameter cannot be scheduled: never stored). */
  params: Record<string, string>;
  /** The agent may finish a replay that stops; its steps become the workflow's next version. */
  handover: boolean;
}

/** How a workflow job's run went: the replay did it all, the agent finished it, or neither. */
export type WorkflowJobOutcome = "replayed" | "repaired" | "failed";

export interface WorkflowJobReport {
  outcome: WorkflowJobOutcome;
  /** 1-based step where the replay stopped (failed) or the repair began (repaired). */
  step?: number;
  /** That step, as a person reads it ("type_ax on textbox \"Email\" in form \"Order\""). */
  description?: string;
  /** The version a repair saved (absent: none was saved; `text` says why). */
  version?: number;
}

export interface JobResult {
  status: "completed" | "failed" | "needs_user_input" | "paused";
  /** What the run answered (or why it failed), short. */
  text: string;
  at: number;
  /** A workflow job's outcome and step. */
  replay?: WorkflowJobReport;
}

export interface ScheduledJob {
  id: string;
  kind: JobKind;
  title: string;
  /** The task's prompt, or the instruction a resumed run starts with. */
  prompt: string;
  mode: Mode;
  /** The tab whose conversation scheduled it: its sidebar lists the job. */
  ownerTabId: string;
  target: JobTarget;
  schedule: JobSchedule;
  /** Kind `workflow`: what it replays. */
  workflow?: JobWorkflow;
  state: JobState;
  /** When the alarm is due (epoch ms). */
  nextRunAt: number;
  createdAt: number;
  runCount: number;
  /** Times it came due while its tab was busy, since its last run. */
  deferrals: number;
  /** The tab the last run used (a URL target's tab), for the sidebar. */
  lastTabId?: string;
  lastRunAt?: number;
  lastResult?: JobResult;
}

export const SCHEDULED_JOBS_KEY = "wb_scheduled_jobs";
export const SCHEDULED_ALARM_PREFIX = "wb_scheduled_job:";

/** Limits, in milliseconds. The add-on and tests may lower the delays (see `SchedulerLimits`). */
export interface SchedulerLimits {
  /** Shortest delay of a task other than "now" (`after_seconds: 0`). */
  minDelayMs: number;
  /** Shortest delay of a resume. */
  minResumeDelayMs: number;
  /** Longest delay before a first run. */
  maxDelayMs: number;
  /** Shortest and longest recurring interval. */
  minIntervalMs: number;
  maxIntervalMs: number;
  /** How long a job that came due on a busy tab waits before it tries again. */
  queueRetryMs: number;
  /** After this many deferrals in a row the job fails rather than wait forever. */
  maxDeferrals: number;
}

const MINUTE_MS = 60_000;

export const DEFAULT_SCHEDULER_LIMITS: SchedulerLimits = {
  minDelayMs: MINUTE_MS,
  minResumeDelayMs: 30_000,
  maxDelayMs: 7 * 24 * 60 * MINUTE_MS,
  minIntervalMs: MINUTE_MS,
  maxIntervalMs: 365 * 24 * 60 * MINUTE_MS,
  queueRetryMs: 30_000,
  maxDeferrals: 120,
};

export function isWaiting(job: ScheduledJob): boolean {
  return WAITING_STATES.includes(job.state);
}

export function isTerminal(job: ScheduledJob): boolean {
  return TERMINAL_STATES.includes(job.state);
}

export function alarmName(jobId: string): string {
  return `${SCHEDULED_ALARM_PREFIX}${jobId}`;
}

export function jobIdFromAlarm(name: string): string | undefined {
  return name.startsWith(SCHEDULED_ALARM_PREFIX) ? name.slice(SCHEDULED_ALARM_PREFIX.length) : undefined;
}

/** The job as a JSON value for a `Store` (it already is one; this states it for the type checker). */
export function jobsToJson(jobs: readonly ScheduledJob[]): JsonValue {
  return jobs as unknown as JsonValue;
}
