/**
 * The add-on's scheduler: a ScheduledJobManager over browser.alarms, jobs in
 * `storage.local.wb_scheduled_jobs`, runs through the RunManager (AddonJobRunner), and the
 * sidebar's requests (`wb_jobs_list`, `wb_jobs_cancel`).
 *
 * Test seam: `storage.local.wb_scheduler_dev_limits` ({minDelayMs, minIntervalMs, ...}) lowers
 * the scheduler's minimum delays, so real-Firefox tests can use seconds instead of the minute
 * the product enforces. Firefox's own alarm floor is what the tests measured (see the README,
 * "Alarm floor").
 */
import { ScheduledJobManager, type SchedulerLimits } from "@webbrain/agent";
import { AddonJobRunner, type RunStarter } from "./addon-job-runner.js";
import { browserAlarms } from "./browser-alarms.js";
import { LocalAreaStore } from "./local-area-store.js";

export const DEV_LIMITS_KEY = "wb_scheduler_dev_limits";

export type SchedulingRequest =
  | { type: "wb_jobs_list"; tabId: number }
  | { type: "wb_jobs_cancel"; jobId: string }
  | { type: "wb_jobs_remove"; jobId: string };

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
  return type === "wb_jobs_list" || type === "wb_jobs_cancel" || type === "wb_jobs_remove";
}

export class SchedulerService {
  readonly manager: ScheduledJobManager;

  constructor(runs: RunStarter) {
    this.manager = new ScheduledJobManager({
      store: new LocalAreaStore(browser.storage.local),
      alarms: browserAlarms,
      runner: new AddonJobRunner(runs, browser.tabs),
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
    }
  }
}
