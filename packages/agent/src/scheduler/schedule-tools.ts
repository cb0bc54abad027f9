/**
 * The model's way into the scheduler: `schedule_task` (a new task later, once or recurring,
 * optionally on a URL) and `schedule_resume` (pause this task and continue it later). Offered
 * only where the embedder gives the agent an `AgentScheduler` (the add-on; the runner has cron).
 *
 * Invariants:
 * - A scheduled task never runs in a stronger mode than the conversation that scheduled it:
 *   from Ask it is an Ask task.
 * - `schedule_resume` ends the current run (a durable pause), as in the original.
 * - Bad input answers the model with a sentence that says what to send, and schedules nothing.
 */
import type { Tool } from "@mariozechner/pi-ai";
import type { JsonValue } from "../browser-port.js";
import type { ScheduledJob, SchedulerLimits } from "./job.js";
import { type JobDraft, resumeDraft, ScheduleInputError, taskDraft } from "./job-input.js";

/** What the agent needs of a scheduler; `ScheduledJobManager` is one. */
export interface AgentScheduler {
  readonly limits: SchedulerLimits;
  now(): number;
  create(draft: JobDraft, ownerTabId: string): Promise<ScheduledJob>;
}

export type ScheduleToolName = "schedule_task" | "schedule_resume";
export const SCHEDULE_TOOL_NAMES: ReadonlySet<string> = new Set<ScheduleToolName>([
  "schedule_task",
  "schedule_resume",
]);

type Mode = "ask" | "act" | "dev";

export interface ScheduleToolDeclaration {
  name: ScheduleToolName;
  description: string;
  parameters: Record<string, JsonValue>;
  modes: Mode[];
}

const WHEN = {
  after_seconds: { type: "number", description: "Seconds from now. 0 starts a task now." },
  run_at: { type: "string", description: "ISO date-time, e.g. 2026-12-02T08:00:00Z." },
};

export const SCHEDULE_TOOLS: readonly ScheduleToolDeclaration[] = [
  {
    name: "schedule_task",
    description:
      "Schedule a standalone task to run later, once or every N minutes, in this tab or in a background tab on a URL. Only when the user explicitly asks for scheduled or recurring work.",
    modes: ["ask", "act", "dev"],
    parameters: {
      type: "object",
      properties: {
        title: { type: "string", description: "Short name shown in the job list." },
        prompt: { type: "string", description: "The full task, written as the user would ask it." },
        schedule: {
          type: "object",
          properties: {
            type: { type: "string", enum: ["once", "recurring"] },
            ...WHEN,
            interval_minutes: { type: "number", description: "For recurring: minutes between runs." },
          },
          required: ["type"],
        },
        target: {
          type: "object",
          description:
            'Where it runs: {"type":"current_tab"} (default) or {"type":"url","url":"https://..."}.',
          properties: { type: { type: "string", enum: ["current_tab", "url"] }, url: { type: "string" } },
        },
        mode: {
          type: "string",
          enum: ["ask", "act", "dev"],
          description: "Default act (never above this chat's).",
        },
      },
      required: ["prompt", "schedule"],
    },
  },
  {
    name: "schedule_resume",
    description:
      "Pause this task and resume it later in this tab, when it waits on something external (a build, an email, a deploy). Ends the current run.",
    modes: ["act", "dev"],
    parameters: {
      type: "object",
      properties: {
        ...WHEN,
        reason: { type: "string", description: "What the task is waiting for." },
        resume_instruction: { type: "string", description: "What to do first when it resumes." },
      },
      required: ["reason"],
    },
  },
];

export function scheduleToolsForMode(
  scheduler: AgentScheduler | undefined,
  mode: Mode,
): ScheduleToolDeclaration[] {
  return scheduler ? SCHEDULE_TOOLS.filter((tool) => tool.modes.includes(mode)) : [];
}

const STRENGTH: Record<Mode, number> = { ask: 0, act: 1, dev: 2 };

export type ScheduleToolAnswer =
  | { ok: true; text: string; job: ScheduledJob; ends: boolean }
  | { ok: false; text: string };

/** Run one schedule tool call for the conversation of `ownerTabId` in `mode`. */
export async function runScheduleTool(
  scheduler: AgentScheduler,
  name: string,
  args: Record<string, unknown>,
  context: { ownerTabId: string; mode: Mode },
): Promise<ScheduleToolAnswer> {
  const tool = SCHEDULE_TOOLS.find((candidate) => candidate.name === name);
  if (!tool?.modes.includes(context.mode)) {
    return { ok: false, text: `${name} is not available in ${context.mode} mode.` };
  }
  let draft: JobDraft;
  try {
    const now = scheduler.now();
    if (name === "schedule_task") {
      draft = taskDraft(args, now, scheduler.limits);
      if (STRENGTH[draft.mode] > STRENGTH[context.mode]) draft = { ...draft, mode: context.mode };
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

/** The declarations as the provider client takes them (plain JSON Schema parameters). */
export function scheduleModelTools(scheduler: AgentScheduler | undefined, mode: Mode): Tool[] {
  return scheduleToolsForMode(scheduler, mode).map(({ name, description, parameters }) => ({
    name,
    description,
    parameters: parameters as unknown as Tool["parameters"],
  }));
}
