/**
 * ScheduledJobManager: durable deferred work for the agent (spec 000 "Scheduled Tasks").
 * Jobs live in a `Store` under `wb_scheduled_jobs`; each waiting job has one alarm named
 * `wb_scheduled_job:<id>`; the embedder (the add-on over browser.alarms, a test over a fake
 * clock) calls `handleAlarm` when one fires, and `restore` once at start.
 *
 * Invariants:
 * - The stored list is the truth; every change is written before the alarm for it is set, so a
 *   crash between the two leaves a job that `restore` re-arms, never an alarm without a job.
 * - Changes are serialized (one mutation at a time), so an alarm and a cancel never interleave.
 * - No run is silently lost: a job found `running`, `needs_user_input` or `paused` at `restore` (the
 *   browser or add-on stopped under it) is queued again; a job that came due while the browser
 *   was closed runs once at `restore`, a recurring one then continues from now.
 * - A job due while its tab is busy is deferred (`queued`) and retried every `queueRetryMs`,
 *   at most `maxDeferrals` times in a row, then fails with a message that says why.
 */
import type { Store } from "../store.js";
import {
  alarmName,
  DEFAULT_SCHEDULER_LIMITS,
  isTerminal,
  isWaiting,
  type JobResult,
  jobIdFromAlarm,
  jobsToJson,
  SCHEDULED_JOBS_KEY,
  type ScheduledJob,
  type SchedulerLimits,
  USER_STATES,
  type WorkflowJobReport,
} from "./job.js";
import { firstDue, type JobDraft } from "./job-input.js";

/** The browser's alarms (browser.alarms in the add-on). `at` is epoch ms. */
export interface SchedulerAlarms {
  set(name: string, at: number): Promise<void>;
  clear(name: string): Promise<void>;
}

export interface SchedulerClock {
  now(): number;
}

/** What a run of a job ended as. */
export interface JobRunOutcome {
  status: JobResult["status"];
  text: string;
  /** The tab the run used (a URL target opens or reuses one). */
  tabId?: string;
  /** A workflow job's outcome; `workflow`: its next version's text, when a repair saved one. */
  replay?: WorkflowJobReport;
  workflow?: string;
}

/** Runs jobs: the add-on over its RunManager, the runner over its agent. */
export interface JobRunner {
  /** True while the job's tab runs something else; the job then waits its turn. */
  isBusy(job: ScheduledJob): boolean;
  /** Run the job once; resolves when that run has ended. Throwing means it failed. */
  run(job: ScheduledJob): Promise<JobRunOutcome>;
}

export interface ScheduledJobManagerDeps {
  store: Store;
  alarms: SchedulerAlarms;
  runner: JobRunner;
  clock?: SchedulerClock;
  limits?: Partial<SchedulerLimits>;
  newJobId?: () => string;
}

/** Jobs are plain JSON; callers get copies so they cannot change the stored list by accident. */
function copyJob(job: ScheduledJob): ScheduledJob {
  return JSON.parse(JSON.stringify(job)) as ScheduledJob;
}

export type JobsListener = (jobs: readonly ScheduledJob[]) => void;

export class ScheduledJobManager {
  readonly limits: SchedulerLimits;
  private readonly clock: SchedulerClock;
  private readonly newJobId: () => string;
  private jobs: ScheduledJob[] | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<JobsListener>();
  private readonly runs = new Map<string, Promise<void>>();

  constructor(private readonly deps: ScheduledJobManagerDeps) {
    this.limits = { ...DEFAULT_SCHEDULER_LIMITS, ...deps.limits };
    this.clock = deps.clock ?? { now: () => Date.now() };
    this.newJobId =
      deps.newJobId ?? (() => `job-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`);
  }

  now(): number {
    return this.clock.now();
  }

  /** Change limits for jobs created from now on (the add-on's test seam lowers the delays). */
  setLimits(limits: Partial<SchedulerLimits>): void {
    Object.assign(this.limits, limits);
  }

  onChange(listener: JobsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Load the jobs and re-arm every waiting one (see the header's restart rules). */
  restore(): Promise<void> {
    return this.mutate(async (jobs) => {
      const now = this.clock.now();
      for (const job of jobs) {
        if (job.state === "running" || USER_STATES.includes(job.state)) {
          job.state = "queued";
          job.nextRunAt = now;
        }
      }
      return { jobs, after: () => Promise.all(jobs.filter(isWaiting).map((job) => this.arm(job))) };
    });
  }

  async list(filter: { ownerTabId?: string; includeFinished?: boolean } = {}): Promise<ScheduledJob[]> {
    const jobs = await this.load();
    return jobs
      .filter((job) => filter.ownerTabId === undefined || job.ownerTabId === filter.ownerTabId)
      .filter((job) => filter.includeFinished !== false || !isTerminal(job))
      .map((job) => copyJob(job));
  }

  async get(jobId: string): Promise<ScheduledJob | undefined> {
    const job = (await this.load()).find((candidate) => candidate.id === jobId);
    return job ? copyJob(job) : undefined;
  }

  /** Store a new job and set its alarm. */
  create(draft: JobDraft, ownerTabId: string): Promise<ScheduledJob> {
    return this.mutate(async (jobs) => {
      const now = this.clock.now();
      const job: ScheduledJob = {
        id: this.newJobId(),
        kind: draft.kind,
        title: draft.title,
        prompt: draft.prompt,
        mode: draft.mode,
        ownerTabId,
        target: draft.target,
        schedule: draft.schedule,
        ...(draft.kind === "workflow" ? { workflow: draft.workflow } : {}),
        state: "pending",
        nextRunAt: Math.max(firstDue(draft.schedule), now),
        createdAt: now,
        runCount: 0,
        deferrals: 0,
      };
      jobs.push(job);
      return { jobs, value: copyJob(job), after: () => this.arm(job) };
    });
  }

  /** Cancel a job: no further runs (a run in progress finishes). False when unknown or finished. */
  cancel(jobId: string): Promise<boolean> {
    return this.mutate(async (jobs) => {
      const job = jobs.find((candidate) => candidate.id === jobId);
      if (!job || isTerminal(job)) return { jobs, value: false };
      job.state = "cancelled";
      return { jobs, value: true, after: () => this.deps.alarms.clear(alarmName(job.id)) };
    });
  }

  /** Forget a job entirely (the sidebar's "remove" of a finished one). */
  remove(jobId: string): Promise<boolean> {
    return this.mutate(async (jobs) => {
      const kept = jobs.filter((job) => job.id !== jobId);
      if (kept.length === jobs.length) return { jobs, value: false };
      return { jobs: kept, value: true, after: () => this.deps.alarms.clear(alarmName(jobId)) };
    });
  }

  /**
   * An alarm fired. Returns false when it is not one of ours. The job's run is started, not
   * awaited: `settled(jobId)` resolves when it has ended and been recorded.
   */
  async handleAlarm(name: string): Promise<boolean> {
    const jobId = jobIdFromAlarm(name);
    if (jobId === undefined) return false;
    await this.mutate(async (jobs) => {
      const job = jobs.find((candidate) => candidate.id === jobId);
      if (!job || !isWaiting(job) || this.runs.has(job.id)) return { jobs };
      if (this.deps.runner.isBusy(job)) {
        job.deferrals++;
        if (job.deferrals > this.limits.maxDeferrals) {
          job.state = "failed";
          job.lastResult = {
            status: "failed",
            text: `Its tab stayed busy through ${this.limits.maxDeferrals} retries; it was not run. Schedule it again for a quieter time.`,
            at: this.clock.now(),
          };
          return { jobs };
        }
        job.state = "queued";
        job.nextRunAt = this.clock.now() + this.limits.queueRetryMs;
        return { jobs, after: () => this.arm(job) };
      }
      job.state = "running";
      job.lastRunAt = this.clock.now();
      job.deferrals = 0;
      return { jobs, after: async () => this.startRun(job.id, copyJob(job)) };
    });
    return true;
  }

  /** Resolves when the job's current run (if any) has ended and its outcome is stored. */
  async settled(jobId: string): Promise<void> {
    await this.runs.get(jobId);
  }

  private startRun(jobId: string, job: ScheduledJob): void {
    const done = this.deps.runner
      .run(job)
      .catch(
        (error: unknown): JobRunOutcome => ({
          status: "failed",
          text: error instanceof Error ? error.message : String(error),
        }),
      )
      .then((outcome) => this.record(jobId, outcome))
      .finally(() => this.runs.delete(jobId));
    this.runs.set(jobId, done);
  }

  private record(jobId: string, outcome: JobRunOutcome): Promise<void> {
    return this.mutate(async (jobs) => {
      const job = jobs.find((candidate) => candidate.id === jobId);
      if (!job) return { jobs };
      const now = this.clock.now();
      job.runCount++;
      job.lastResult = {
        status: outcome.status,
        text: outcome.text.slice(0, 500),
        at: now,
        ...(outcome.replay ? { replay: outcome.replay } : {}),
      };
      if (outcome.tabId !== undefined) job.lastTabId = outcome.tabId;
      // A repaired workflow's next run replays the new version.
      if (outcome.workflow !== undefined && job.workflow) job.workflow.text = outcome.workflow;
      // Cancelled or removed while it ran: the run's result is kept, nothing more is planned.
      if (job.state !== "running") return { jobs };
      const waitsOnUser = USER_STATES.includes(outcome.status);
      if (job.schedule.type === "recurring" && !waitsOnUser) {
        const intervalMs = job.schedule.intervalMinutes * 60_000;
        let next = job.nextRunAt + intervalMs;
        // A run that overran one or more intervals skips them rather than firing back to back.
        while (next <= now) next += intervalMs;
        job.nextRunAt = next;
        job.state = "pending";
        return { jobs, after: () => this.arm(job) };
      }
      job.state = outcome.status;
      return { jobs };
    });
  }

  private async arm(job: ScheduledJob): Promise<void> {
    await this.deps.alarms.set(alarmName(job.id), Math.max(job.nextRunAt, this.clock.now()));
  }

  private async load(): Promise<ScheduledJob[]> {
    if (!this.jobs) {
      const stored = await this.deps.store.get(SCHEDULED_JOBS_KEY);
      this.jobs = Array.isArray(stored) ? (stored as unknown as ScheduledJob[]) : [];
    }
    return this.jobs;
  }

  /** One change at a time: read, change, write, then side effects (alarms), then listeners. */
  private mutate<T>(
    change: (
      jobs: ScheduledJob[],
    ) => Promise<{ jobs: ScheduledJob[]; value?: T; after?: () => Promise<unknown> }>,
  ): Promise<T> {
    const next = this.queue.then(async () => {
      const jobs = await this.load();
      const result = await change(jobs);
      this.jobs = result.jobs;
      await this.deps.store.set(SCHEDULED_JOBS_KEY, jobsToJson(result.jobs));
      await result.after?.();
      const snapshot = result.jobs.map((job) => copyJob(job));
      for (const listener of this.listeners) listener(snapshot);
      return result.value as T;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}
