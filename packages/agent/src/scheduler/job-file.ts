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
 *       "mode": "ask" | "act" | "dev",
 *       "url": "https://news.example/",          // where it runs; absent: the runner's --url
 *       "schedule": {"type": "once", "runAt": "<ISO>"}
 *                 | {"type": "recurring", "intervalMinutes": 60, "firstRunAt": "<ISO>"}
 *     }
 *   }
 * `url` is the job's URL target, or, for a job that runs on the tab that scheduled it, that
 * tab's URL when it was exported. `schedule` is informative (cron owns timing on a server).
 *
 * Invariants:
 * - Only `task` jobs export: a `resume` job continues a conversation that lives in the browser.
 * - A bad file is a `JobFileError` that names the field and says what to fix.
 */
import { isMode, MODES, type Mode } from "@webbrain/protocol";
import type { ScheduledJob } from "./job.js";

export const JOB_FILE_FORMAT = "webbrain-job";
export const JOB_FILE_VERSION = 1;

export type JobFileSchedule =
  | { type: "once"; runAt: string }
  | { type: "recurring"; intervalMinutes: number; firstRunAt: string };

export interface JobFile {
  format: typeof JOB_FILE_FORMAT;
  version: typeof JOB_FILE_VERSION;
  exportedAt: string;
  job: {
    kind: "task";
    title: string;
    prompt: string;
    mode: Mode;
    url?: string;
    schedule: JobFileSchedule;
  };
}

export class JobFileError extends Error {
  override name = "JobFileError";
}

/** The job file of a task job; `ownerTabUrl` fills `url` for a job that runs on its own tab. */
export function jobFileFromJob(job: ScheduledJob, ownerTabUrl?: string, now = Date.now()): JobFile {
  if (job.kind !== "task") {
    throw new JobFileError(
      "Only scheduled tasks can be exported: a resume continues a conversation that stays in the browser.",
    );
  }
  const url = job.target.type === "url" ? job.target.url : ownerTabUrl;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    format: JOB_FILE_FORMAT,
    version: JOB_FILE_VERSION,
    exportedAt: iso(now),
    job: {
      kind: "task",
      title: job.title,
      prompt: job.prompt,
      mode: job.mode,
      ...(url ? { url } : {}),
      schedule:
        job.schedule.type === "once"
          ? { type: "once", runAt: iso(job.schedule.runAt) }
          : {
              type: "recurring",
              intervalMinutes: job.schedule.intervalMinutes,
              firstRunAt: iso(job.schedule.firstRunAt),
            },
    },
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
  if (file.version !== JOB_FILE_VERSION) {
    throw new JobFileError(
      `Job file version ${JSON.stringify(file.version)} is not supported (this webbrain reads version ${JOB_FILE_VERSION}); update webbrain or export the job again.`,
    );
  }
  const job = object(file.job);
  if (!job) throw new JobFileError('The job file has no "job" object.');
  if (job.kind !== "task")
    throw new JobFileError('"job.kind" must be "task": only tasks run outside the browser.');
  if (typeof job.prompt !== "string" || job.prompt.trim() === "") {
    throw new JobFileError('"job.prompt" must be the task to do (a non-empty string).');
  }
  if (!isMode(job.mode)) {
    throw new JobFileError(`"job.mode" must be one of ${MODES.join(", ")}.`);
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
