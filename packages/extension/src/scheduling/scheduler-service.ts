/**
 * The add-on's scheduler: a ScheduledJobManager over browser.alarms, jobs in
 * `storage.local.wb_scheduled_jobs`, runs through the RunManager (AddonJobRunner), and the
 * sidebar's requests (`wb_jobs_list`, `wb_jobs_cancel`, and `wb_jobs_schedule_workflow` from
 * the workflow panel's Schedule: a saved workflow replayed on schedule, its text embedded in
 * the job).
 *
 * Test seam: `storage.local.wb_scheduler_dev_limits` ({minDelayMs, minIntervalMs, ...}) lowers
 * the scheduler's minimum delays, so real-Firefox tests can use seconds instead of the minute
 * the product enforces. Firefox's own alarm floor is what the tests measured (see the README,
 * "Alarm floor").
 */
import {
  parseWorkflow,
  protectedDispatchStep,
  ScheduledJobManager,
  type SchedulerLimits,
  serializeWorkflow,
  workflowDraft,
} from "@webbrain/agent";
import type { RunStarter } from "../background/workflow-handover.js";
import { t } from "../shared/i18n.js";
import { loadProtectedRoutes } from "../shared/messaging-routes.js";
import { AddonJobRunner, type WorkflowJobPorts } from "./addon-job-runner.js";
import { browserAlarms } from "./browser-alarms.js";
import { LocalAreaStore } from "./local-area-store.js";

export const DEV_LIMITS_KEY = "wb_scheduler_dev_limits";

/** The workflow panel's Schedule: replay this workflow after `afterSeconds`, maybe every N min. */
export interface ScheduleWorkflowRequest {
  type: "wb_jobs_schedule_workflow";
  /** The tab whose sidebar scheduled it (it lists the job). */
  tabId: number;
  /** The workflow file's text (approved by the user). */
  workflow: string;
  params: Record<string, string>;
  /** Start page ("" = the workflow's recorded one). */
  url: string;
  afterSeconds: number;
  intervalMinutes?: number;
  handover: boolean;
}

export type SchedulingRequest =
  | { type: "wb_jobs_list"; tabId: number }
  | { type: "wb_jobs_cancel"; jobId: string }
  | { type: "wb_jobs_remove"; jobId: string }
  | ScheduleWorkflowRequest;

type Reply = { ok: true; value: unknown } | { ok: false; error: string };

const LIMIT_KEYS: (keyof SchedulerLimits)[] = [
  "minDelayMs",
  "minResumeDelayMs",
  "maxDelayMs",
  "minIntervalMs",
  "maxIntervalMs",
  "queueRetryMs",
  "maxDeferrals",
];

function devLimits(value: unknown): Partial<SchedulerLimits> {
  if (!value || typeof value !== "object") return {};
  const limits: Partial<SchedulerLimits> = {};
  for (const key of LIMIT_KEYS) {
    const number = (value as Record<string, unknown>)[key];
    if (typeof number === "number" && Number.isFinite(number) && number >= 0) limits[key] = number;
  }
  return limits;
}

function isSchedulingRequest(message: unknown): message is SchedulingRequest {
  const type = (message as { type?: unknown } | null)?.type;
  return (
    type === "wb_jobs_list" ||
    type === "wb_jobs_cancel" ||
    type === "wb_jobs_remove" ||
    type === "wb_jobs_schedule_workflow"
  );
}

export class SchedulerService {
  readonly manager: ScheduledJobManager;

  constructor(runs: RunStarter, workflows?: WorkflowJobPorts) {
    this.manager = new ScheduledJobManager({
      store: new LocalAreaStore(browser.storage.local),
      alarms: browserAlarms,
      runner: new AddonJobRunner(runs, browser.tabs, workflows),
    });
  }

  /** Listen to alarms, apply the dev limits, re-arm stored jobs. Call once at start. */
  async start(): Promise<void> {
    browser.alarms.onAlarm.addListener((alarm) => {
      void this.manager
        .handleAlarm(alarm.name)
        .catch((error: unknown) => console.error("WebBrain: scheduled job failed to start", error));
    });
    browser.storage.onChanged.addListener((changes, area) => {
      const change = changes[DEV_LIMITS_KEY];
      if (area === "local" && change) this.manager.setLimits(devLimits(change.newValue));
    });
    const stored = await browser.storage.local.get(DEV_LIMITS_KEY);
    this.manager.setLimits(devLimits(stored[DEV_LIMITS_KEY]));
    await this.manager.restore();
  }

  /** Answers the scheduling requests; undefined for any other message. */
  handle(message: unknown): Promise<Reply> | undefined {
    if (!isSchedulingRequest(message)) return undefined;
    return this.answer(message).then(
      (value): Reply => ({ ok: true, value }),
      (error: unknown): Reply => ({
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  private async answer(request: SchedulingRequest): Promise<unknown> {
    switch (request.type) {
      case "wb_jobs_list":
        return this.manager.list({ ownerTabId: String(request.tabId) });
      case "wb_jobs_cancel":
        return { cancelled: await this.manager.cancel(request.jobId) };
      case "wb_jobs_remove":
        return { removed: await this.manager.remove(request.jobId) };
      case "wb_jobs_schedule_workflow":
        return this.scheduleWorkflow(request);
    }
  }

  private async scheduleWorkflow(request: ScheduleWorkflowRequest) {
    const workflow = parseWorkflow(request.workflow);
    // Refused now, while the user is here to read why (the replay checks again when it runs).
    const blocked = protectedDispatchStep(workflow, await loadProtectedRoutes());
    if (blocked) throw new Error(blocked.reason);
    // A secret is never stored, and a scheduled replay has nobody to ask for it.
    const secret = workflow.params.find((p) => p.secret);
    if (secret) throw new Error(t("workflowScheduleSecret", secret.name));
    if (!request.url && !workflow.startUrl) throw new Error(t("workflowNeedsStartPage"));
    const schedule =
      request.intervalMinutes === undefined
        ? { type: "once", after_seconds: request.afterSeconds }
        : {
            type: "recurring",
            interval_minutes: request.intervalMinutes,
            after_seconds: request.afterSeconds,
          };
    const draft = workflowDraft(
      { schedule, ...(request.url ? { target: request.url } : {}) },
      {
        name: workflow.name,
        startUrl: workflow.startUrl,
        text: serializeWorkflow(workflow),
        params: request.params,
        handover: request.handover,
      },
      this.manager.now(),
      this.manager.limits,
    );
    return this.manager.create(draft, String(request.tabId));
  }
}
