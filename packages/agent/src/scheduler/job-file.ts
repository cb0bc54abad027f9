/**
 * Job files: a scheduled task exported from the add-on (sidebar -> Export) so `webbrain run
 * --job FILE` can run it once, and cron can run it on a server. The format is public and
 * versioned; readers refuse a version they do not know rather than guess.
 *
 * Format, version 1 (JSON, one object):
 *   {
 *     "format": "webbrain-job",
 *     "version": 1,
 *     "exportedAt": "2026-12-02T08:00:00.000Z",
 *     "job": {
 *       "kind": "task",
 *       "title": "Headline check",
 *       "prompt": "What is the top story?",
 *       "mode": "act",                           // one of MODES (@webbrain/protocol)
 *       "url": "https://news.example/",          // where it runs; absent: the runner's --url
 *       "schedule": {"type": "once", "runAt": "<ISO>"}
 *                 | {"type": "recurring", "intervalMinutes": 60, "firstRunAt": "<ISO>"}
 *     }
 *   }
 * `url` is the job's URL target, or, for a job that runs on the tab that scheduled it, that
 * tab's URL when it was exported. `schedule` is informative (cron owns timing on a server).
 *
 * Version 2 adds the kind "workflow", a saved workflow replayed on schedule:
 *   "job": { "kind": "workflow", "title", "mode": "act", "url"?, "schedule",
 *            "workflow": { ...the workflow file's object (workflow-format.ts)... },
 *            "params": {"customer": "Grace Hopper"},   // parameter values for the replay
 *            "handover": true }                         // the agent may finish a stopped replay
 * The workflow is embedded, not named: the file must run where the add-on's list is not.
 *
 * Invariants:
 * - Only `task` and `workflow` jobs export: a `resume` job continues a conversation that lives
 *   in the browser.
 * - A task job is written as version 1, so an older webbrain still runs it; version 1 files
 *   still parse.
 * - A bad file is a `JobFileError` that names the field and says what to fix.
 */
import { isMode, MODES, type Mode } from "@webbrain/protocol";
import { parseWorkflow, type Workflow, WorkflowError } from "../workflows/workflow-format.js";
import type { ScheduledJob } from "./job.js";

export const JOB_FILE_FORMAT = "webbrain-job";
/** The newest version this webbrain reads and writes. */
export const JOB_FILE_VERSION = 2;
const TASK_JOB_FILE_VERSION = 1;

export type JobFileSchedule =
  | { type: "once"; runAt: string }
  | { type: "recurring"; intervalMinutes: number; firstRunAt: string };

export interface TaskJobFileEntry {
  kind: "task";
  title: string;
  prompt: string;
  mode: Mode;
  url?: string;
  schedule: JobFileSchedule;
}

export interface WorkflowJobFileEntry {
  kind: "workflow";
  title: string;
  mode: "act";
  url?: string;
  schedule: JobFileSchedule;
  workflow: Workflow;
  params: Record<string, string>;
  handover: boolean;
}

export interface JobFile {
  format: typeof JOB_FILE_FORMAT;
  version: 1 | 2;
  exportedAt: string;
  job: TaskJobFileEntry | WorkflowJobFileEntry;
}

export class JobFileError extends Error {
  override name = "JobFileError";
}

/**
 * The job file of a task or workflow job; `ownerTabUrl` fills `url` for a job that runs on its
 * own tab.
 */
export function jobFileFromJob(job: ScheduledJob, ownerTabUrl?: string, now = Date.now()): JobFile {
  if (job.kind === "resume") {
    throw new JobFileError(
      "Only scheduled tasks and workflows can be exported: a resume continues a conversation that stays in the browser.",
    );
  }
  const url = job.target.type === "url" ? job.target.url : ownerTabUrl;
  const iso = (ms: number) => new Date(ms).toISOString();
  const common = {
    title: job.title,
    ...(url ? { url } : {}),
    schedule:
      job.schedule.type === "once"
        ? { type: "once" as const, runAt: iso(job.schedule.runAt) }
        : {
            type: "recurring" as const,
            intervalMinutes: job.schedule.intervalMinutes,
            firstRunAt: iso(job.schedule.firstRunAt),
          },
  };
  if (job.kind === "workflow") {
    if (!job.workflow) throw new JobFileError("This workflow job has no workflow; schedule it again.");
    return {
      format: JOB_FILE_FORMAT,
      version: JOB_FILE_VERSION,
      exportedAt: iso(now),
      job: {
        kind: "workflow",
        ...common,
        mode: "act",
        workflow: parseWorkflow(job.workflow.text),
        params: job.workflow.params,
        handover: job.workflow.handover,
      },
    };
  }
  return {
    format: JOB_FILE_FORMAT,
    version: TASK_JOB_FILE_VERSION,
    exportedAt: iso(now),
    job: { kind: "task", ...common, prompt: job.prompt, mode: job.mode },
  };
}

function object(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Parses and checks a job file's text; throws JobFileError saying what is wrong. */
export function parseJobFile(text: string): JobFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JobFileError(
      `The job file is not JSON (${(error as Error).message}); export it again from the add-on's sidebar.`,
    );
  }
  const file = object(value);
  if (file?.format !== JOB_FILE_FORMAT) {
    throw new JobFileError(`This is not a WebBrain job file ("format" must be "${JOB_FILE_FORMAT}").`);
  }
  if (file.version !== 1 && file.version !== JOB_FILE_VERSION) {
    throw new JobFileError(
      `Job file version ${JSON.stringify(file.version)} is not supported (this webbrain reads versions 1 to ${JOB_FILE_VERSION}); update webbrain or export the job again.`,
    );
  }
  const job = object(file.job);
  if (!job) throw new JobFileError('The job file has no "job" object.');
  if (job.kind === "workflow" && file.version >= 2) {
    checkWorkflowEntry(job);
  } else if (job.kind === "task") {
    if (typeof job.prompt !== "string" || job.prompt.trim() === "") {
      throw new JobFileError('"job.prompt" must be the task to do (a non-empty string).');
    }
    if (!isMode(job.mode)) {
      throw new JobFileError(`"job.mode" must be one of ${MODES.join(", ")}.`);
    }
  } else {
    throw new JobFileError(
      `"job.kind" must be "task" or (from version 2) "workflow": only those run outside the browser.`,
    );
  }
  if (job.url !== undefined) {
    if (typeof job.url !== "string" || !URL.canParse(job.url)) {
      throw new JobFileError('"job.url" must be an absolute URL (or be left out).');
    }
  }
  const schedule = object(job.schedule);
  if (schedule?.type !== "once" && schedule?.type !== "recurring") {
    throw new JobFileError('"job.schedule.type" must be "once" or "recurring".');
  }
  return value as JobFile;
}

/** A workflow entry's checks; its workflow is replaced by the parsed (checked) one. */
function checkWorkflowEntry(job: Record<string, unknown>): void {
  if (job.mode !== undefined && job.mode !== "act") {
    throw new JobFileError(
      '"job.mode" of a workflow job must be "act" (a replay never gets Dev-only tools).',
    );
  }
  job.mode = "act";
  try {
    job.workflow = parseWorkflow(JSON.stringify(job.workflow ?? null));
  } catch (error) {
    if (error instanceof WorkflowError) throw new JobFileError(`"job.workflow": ${error.message}`);
    throw error;
  }
  const params = job.params === undefined ? {} : object(job.params);
  if (!params || Object.values(params).some((v) => typeof v !== "string")) {
    throw new JobFileError('"job.params" must map parameter names to string values (or be left out).');
  }
  job.params = params;
  if (job.handover !== undefined && typeof job.handover !== "boolean") {
    throw new JobFileError('"job.handover" must be true or false (or be left out: false).');
  }
  job.handover = job.handover === true;
  if (typeof job.title !== "string") job.title = (job.workflow as Workflow).name;
}
