/**
 * The sidebar's list of the current tab's scheduled jobs: kind, title, next run, last result
 * (a workflow job's says replayed / repaired / failed and the step), Cancel, and Export (a task
 * or workflow as a job file for `webbrain run --job`). It sits above the composer and hides
 * itself when the tab has no live or recent job. It refreshes when the tab changes and whenever `wb_scheduled_jobs` changes in storage,
 * so a job that fires or finishes shows at once.
 */
import {
  type JobResult,
  type JobState,
  jobFileFromJob,
  SCHEDULED_JOBS_KEY,
  type ScheduledJob,
} from "@webbrain/agent";
import { t, type UiKey } from "../shared/i18n.js";

type Reply<T> = { ok: true; value: T } | { ok: false; error: string };

const RECENT_FINISHED = 3;

const STATE_LABELS: Record<JobState, UiKey> = {
  pending: "jobStatePending",
  queued: "jobStateQueued",
  running: "jobStateRunning",
  needs_user_input: "jobStateNeedsUserInput",
  paused: "jobStatePaused",
  completed: "jobStateCompleted",
  failed: "jobStateFailed",
  cancelled: "jobStateCancelled",
};

/** A job state (or a last result's status, which uses the same words) in the user's language. */
function stateLabel(state: string): string {
  return state in STATE_LABELS ? t(STATE_LABELS[state as JobState]) : state.replace(/_/g, " ");
}

function when(epochMs: number): string {
  return new Date(epochMs).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });
}

const TITLES: Record<ScheduledJob["kind"], UiKey> = {
  task: "jobTask",
  resume: "jobResume",
  workflow: "jobWorkflow",
};

/** The last result as one line: a workflow job's outcome and step, else the status and text. */
function lastResultLine(result: JobResult | undefined): string {
  if (!result) return t("jobNotRunYet");
  const replay = result.replay;
  if (replay?.outcome === "replayed") return t("jobOutcomeReplayed");
  if (replay?.step !== undefined) {
    const where = replay.description ?? "";
    if (replay.outcome === "failed") return t("jobOutcomeFailedAt", replay.step, where);
    const line = t("jobOutcomeRepaired", replay.step, where);
    return replay.version === undefined ? line : `${line} ${t("jobOutcomeRepairedVersion", replay.version)}`;
  }
  return result.text
    ? t("jobLastResultText", stateLabel(result.status), result.text.slice(0, 120))
    : t("jobLastResult", stateLabel(result.status));
}

export function mountJobsView(
  before: HTMLElement,
  currentTabId: () => number | undefined,
): { refresh(): void } {
  const section = document.createElement("section");
  section.id = "scheduled-jobs";
  section.className = "scheduled-jobs";
  section.hidden = true;
  const heading = document.createElement("h2");
  heading.textContent = t("jobsHeading");
  const list = document.createElement("ul");
  section.append(heading, list);
  before.before(section);

  function render(jobs: ScheduledJob[]): void {
    const live = jobs.filter((job) => !["completed", "failed", "cancelled"].includes(job.state));
    const finished = jobs.filter((job) => !live.includes(job)).slice(-RECENT_FINISHED);
    const shown = [...live, ...finished];
    section.hidden = shown.length === 0;
    list.replaceChildren(
      ...shown.map((job) => {
        const item = document.createElement("li");
        item.className = `job job-${job.state}`;
        item.dataset.jobId = job.id;
        const title = document.createElement("strong");
        title.textContent = t(TITLES[job.kind], job.title);
        const state = document.createElement("span");
        state.className = "job-state";
        state.textContent = stateLabel(job.state);
        const repeat = document.createElement("span");
        repeat.className = "job-repeat";
        if (job.schedule.type === "recurring")
          repeat.textContent = t("jobEveryMinutes", job.schedule.intervalMinutes);
        const next = document.createElement("p");
        next.className = "job-next";
        next.textContent = live.includes(job) ? t("jobNextRun", when(job.nextRunAt)) : "";
        const last = document.createElement("p");
        last.className = "job-last";
        last.textContent = lastResultLine(job.lastResult);
        // The whole line (a stop's reason) for a person who hovers it.
        if (job.lastResult?.text) last.title = job.lastResult.text;
        item.append(title, " ", state, repeat, next, last);
        if (job.kind !== "resume") {
          const exportButton = document.createElement("button");
          exportButton.type = "button";
          exportButton.className = "quiet job-export";
          exportButton.textContent = t("jobExport");
          exportButton.title = t("jobExportTitle");
          exportButton.addEventListener("click", () => void exportJob(job));
          item.append(exportButton);
        }
        if (live.includes(job)) {
          const cancel = document.createElement("button");
          cancel.type = "button";
          cancel.className = "quiet job-cancel";
          cancel.textContent = t("cancel");
          cancel.addEventListener("click", () => {
            void browser.runtime.sendMessage({ type: "wb_jobs_cancel", jobId: job.id }).then(refresh);
          });
          item.append(cancel);
        }
        return item;
      }),
    );
  }

  /** Saves the job file through Downloads (the user's download folder, or a Save dialog). */
  async function exportJob(job: ScheduledJob): Promise<void> {
    const tabId = currentTabId();
    const ownerUrl =
      tabId === undefined ? undefined : (await browser.tabs.get(tabId).catch(() => undefined))?.url;
    const file = jobFileFromJob(job, ownerUrl);
    const blob = new Blob([`${JSON.stringify(file, null, 2)}\n`], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const slug =
      job.title
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "")
        .slice(0, 40) || "task";
    try {
      await browser.downloads.download({ url, filename: `webbrain-job-${slug}.json` });
    } finally {
      // Downloads has copied the blob's URL by the time download() resolves; a minute is generous.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    }
  }

  function refresh(): void {
    const tabId = currentTabId();
    if (tabId === undefined) {
      section.hidden = true;
      return;
    }
    void (
      browser.runtime.sendMessage({ type: "wb_jobs_list", tabId }) as Promise<
        Reply<ScheduledJob[]> | undefined
      >
    )
      .then((reply) => {
        if (reply?.ok && tabId === currentTabId()) render(reply.value);
      })
      .catch(() => undefined);
  }

  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && changes[SCHEDULED_JOBS_KEY]) refresh();
  });
  refresh();
  return { refresh };
}
