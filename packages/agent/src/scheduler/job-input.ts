/**
 * Turns what a model (schedule_task / schedule_resume) or a job file asks for into a checked
 * job draft. Every refusal is a `ScheduleInputError` whose message says what to send instead,
 * because the model reads it as the tool's result.
 */
import { isMode, MODES, type Mode, valuesForMessage } from "@webbrain/protocol";
import type { JobSchedule, JobTarget, JobWorkflow, SchedulerLimits } from "./job.js";

export class ScheduleInputError extends Error {
  override name = "ScheduleInputError";
}

export interface TaskDraft {
  kind: "task";
  title: string;
  prompt: string;
  mode: Mode;
  target: JobTarget;
  schedule: JobSchedule;
}

export interface ResumeDraft {
  kind: "resume";
  title: string;
  prompt: string;
  mode: Mode;
  target: { type: "current_tab" };
  schedule: { type: "once"; runAt: number };
}

export interface WorkflowDraft {
  kind: "workflow";
  title: string;
  /** What the job does, as the sidebar shows it. */
  prompt: string;
  /** A replay runs in Act mode, with the executor's gates (never Dev-only tools). */
  mode: "act";
  target: JobTarget;
  schedule: JobSchedule;
  workflow: JobWorkflow;
}

export type JobDraft = TaskDraft | ResumeDraft | WorkflowDraft;

const MAX_TITLE_CHARS = 120;
const MAX_PROMPT_CHARS = 4_000;

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function text(value: unknown, what: string, max: number): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ScheduleInputError(`${what} is required: send it as a non-empty string.`);
  }
  const trimmed = value.trim();
  if (trimmed.length > max)
    throw new ScheduleInputError(`${what} is too long: keep it under ${max} characters.`);
  return trimmed;
}

function mode(value: unknown): Mode {
  if (value === undefined) return "act";
  if (isMode(value)) return value;
  throw new ScheduleInputError(`mode must be ${valuesForMessage(MODES)} (got ${JSON.stringify(value)}).`);
}

/** When the first run is due: `after_seconds` from now, or `run_at` (ISO date or epoch ms). */
function firstRunAt(
  input: Record<string, unknown>,
  now: number,
  minDelayMs: number,
  maxDelayMs: number,
  allowNow: boolean,
): number {
  const after = input.after_seconds;
  const at = input.run_at;
  let due: number;
  if (after !== undefined) {
    if (typeof after !== "number" || !Number.isFinite(after) || after < 0) {
      throw new ScheduleInputError("after_seconds must be a number of seconds, 0 or more.");
    }
    due = now + after * 1000;
    if (after === 0 && allowNow) return now;
  } else if (at !== undefined) {
    due = typeof at === "number" ? at : typeof at === "string" ? Date.parse(at) : Number.NaN;
    if (!Number.isFinite(due)) {
      throw new ScheduleInputError('run_at must be an ISO date-time such as "2026-12-02T08:00:00Z".');
    }
  } else {
    throw new ScheduleInputError("Say when: send after_seconds (a number) or run_at (an ISO date-time).");
  }
  const delay = due - now;
  if (delay < minDelayMs) {
    const seconds = Math.ceil(minDelayMs / 1000);
    throw new ScheduleInputError(
      `That is too soon: schedule it at least ${seconds} seconds ahead${allowNow ? " (or after_seconds: 0 to start now)" : ""}.`,
    );
  }
  if (delay > maxDelayMs) {
    const days = Math.floor(maxDelayMs / 86_400_000);
    throw new ScheduleInputError(`That is too far ahead: the first run must be within ${days} days.`);
  }
  return due;
}

function target(value: unknown): JobTarget {
  if (value === undefined) return { type: "current_tab" };
  const input = typeof value === "string" ? { type: "url", url: value } : record(value);
  if (input.type === "current_tab" || (input.type === undefined && input.url === undefined)) {
    return { type: "current_tab" };
  }
  const url = input.url;
  if (typeof url !== "string") {
    throw new ScheduleInputError(
      'target must be {"type":"current_tab"} or {"type":"url","url":"https://..."}.',
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ScheduleInputError(`target.url is not a URL: ${JSON.stringify(url)}. Send a full http(s) URL.`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new ScheduleInputError(`target.url must be http(s) (got ${parsed.protocol}).`);
  }
  return { type: "url", url: parsed.href };
}

/** schedule_task's arguments: {title, prompt, schedule: {type, after_seconds|run_at, interval_minutes}, target?, mode?}. */
export function taskDraft(args: Record<string, unknown>, now: number, limits: SchedulerLimits): TaskDraft {
  const prompt = text(args.prompt, "prompt", MAX_PROMPT_CHARS);
  const title = args.title === undefined ? prompt.slice(0, 60) : text(args.title, "title", MAX_TITLE_CHARS);
  const schedule = record(
    args.schedule ?? { type: "once", after_seconds: args.after_seconds, run_at: args.run_at },
  );
  const type = schedule.type ?? (schedule.interval_minutes !== undefined ? "recurring" : "once");
  let planned: JobSchedule;
  if (type === "once") {
    planned = { type: "once", runAt: firstRunAt(schedule, now, limits.minDelayMs, limits.maxDelayMs, true) };
  } else if (type === "recurring") {
    const minutes = schedule.interval_minutes;
    if (typeof minutes !== "number" || !Number.isFinite(minutes)) {
      throw new ScheduleInputError("A recurring schedule needs interval_minutes (a number).");
    }
    const intervalMs = minutes * 60_000;
    if (intervalMs < limits.minIntervalMs || intervalMs > limits.maxIntervalMs) {
      throw new ScheduleInputError(
        `interval_minutes must be between ${limits.minIntervalMs / 60_000} and ${limits.maxIntervalMs / 60_000}.`,
      );
    }
    const hasStart = schedule.after_seconds !== undefined || schedule.run_at !== undefined;
    const first = hasStart
      ? firstRunAt(schedule, now, limits.minDelayMs, limits.maxDelayMs, true)
      : now + intervalMs;
    planned = { type: "recurring", intervalMinutes: minutes, firstRunAt: first };
  } else {
    throw new ScheduleInputError(
      `schedule.type must be "once" or "recurring" (got ${JSON.stringify(type)}).`,
    );
  }
  return {
    kind: "task",
    title,
    prompt,
    mode: mode(args.mode),
    target: target(args.target),
    schedule: planned,
  };
}

/**
 * A workflow job: the schedule as schedule_task takes it ({title?, schedule, target?}), on the
 * workflow's start page unless a target says otherwise.
 */
export function workflowDraft(
  args: Record<string, unknown>,
  workflow: JobWorkflow & { name: string; startUrl: string },
  now: number,
  limits: SchedulerLimits,
): WorkflowDraft {
  const prompt = `Replay the saved workflow "${workflow.name}".`;
  const task = taskDraft(
    {
      ...args,
      prompt,
      title: args.title ?? workflow.name.slice(0, MAX_TITLE_CHARS),
      target: args.target ?? (workflow.startUrl || undefined),
      mode: "act",
    },
    now,
    limits,
  );
  const { text, params, handover } = workflow;
  return { ...task, kind: "workflow", mode: "act", prompt, workflow: { text, params, handover } };
}

/** schedule_resume's arguments: {after_seconds | run_at, reason, resume_instruction}. */
export function resumeDraft(
  args: Record<string, unknown>,
  now: number,
  limits: SchedulerLimits,
  currentMode: Mode,
): ResumeDraft {
  const reason = text(args.reason, "reason", MAX_TITLE_CHARS);
  const instruction =
    typeof args.resume_instruction === "string" && args.resume_instruction.trim() !== ""
      ? text(args.resume_instruction, "resume_instruction", MAX_PROMPT_CHARS)
      : `Resume the task now (it was paused: ${reason}). Check the page again and carry on.`;
  const runAt = firstRunAt(args, now, limits.minResumeDelayMs, limits.maxDelayMs, false);
  return {
    kind: "resume",
    title: reason,
    prompt: instruction,
    mode: currentMode,
    target: { type: "current_tab" },
    schedule: { type: "once", runAt },
  };
}

/** The first due time of a draft's schedule. */
export function firstDue(schedule: JobSchedule): number {
  return schedule.type === "once" ? schedule.runAt : schedule.firstRunAt;
}
