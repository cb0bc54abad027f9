/**
 * The model's way into the scheduler: `schedule_task` (a new task later, once or recurring,
 * optionally on a URL) and `schedule_resume` (pause this task and continue it later). Declared in
 * tool-catalog.ts as tools the agent runs that require a scheduler: offered only where the
 * embedder gives the agent an `AgentScheduler` (the add-on; the runner has cron).
 *
 * Invariants:
 * - A scheduled task never runs in a stronger mode than the conversation that scheduled it:
 *   from Ask it is an Ask task.
 * - `schedule_resume` ends the current run (a durable pause), as in the original.
 * - Bad input answers the model with a sentence that says what to send, and schedules nothing.
 */
import { type Mode, modeRank } from "@webbrain/protocol";
import type { ScheduledJob, SchedulerLimits } from "./job.js";
import { type JobDraft, resumeDraft, ScheduleInputError, taskDraft } from "./job-input.js";

/** What the agent needs of a scheduler; `ScheduledJobManager` is one. */
export interface AgentScheduler {
  readonly limits: SchedulerLimits;
  now(): number;
  create(draft: JobDraft, ownerTabId: string): Promise<ScheduledJob>;
}

/** The scheduling tools; declared with every other tool in tool-catalog.ts. */
export type ScheduleToolName = "schedule_task" | "schedule_resume";

export type ScheduleToolAnswer =
  | { ok: true; text: string; job: ScheduledJob; ends: boolean }
  | { ok: false; text: string };

/**
 * Run one schedule tool call for the conversation of `ownerTabId` in `mode`. The executor's gate
 * (tool-selection.ts) has already checked the mode and that there is a scheduler.
 */
export async function runScheduleTool(
  scheduler: AgentScheduler,
  name: ScheduleToolName,
  args: Record<string, unknown>,
  context: { ownerTabId: string; mode: Mode },
): Promise<ScheduleToolAnswer> {
  let draft: JobDraft;
  try {
    const now = scheduler.now();
    if (name === "schedule_task") {
      draft = taskDraft(args, now, scheduler.limits);
      if (modeRank(draft.mode) > modeRank(context.mode)) draft = { ...draft, mode: context.mode };
    } else {
      draft = resumeDraft(args, now, scheduler.limits, context.mode);
    }
  } catch (error) {
    if (error instanceof ScheduleInputError) return { ok: false, text: error.message };
    throw error;
  }
  const job = await scheduler.create(draft, context.ownerTabId);
  const when = new Date(job.nextRunAt).toISOString();
  const repeat = job.schedule.type === "recurring" ? `, then every ${job.schedule.intervalMinutes} min` : "";
  const where = job.target.type === "url" ? ` on ${job.target.url}` : "";
  const text =
    job.kind === "resume"
      ? `Paused. This task resumes at ${when} (job ${job.id}). Stop now; do not call more tools.`
      : `Scheduled "${job.title}"${where} for ${when}${repeat} (job ${job.id}, ${job.mode} mode).`;
  return { ok: true, text, job, ends: job.kind === "resume" };
}
