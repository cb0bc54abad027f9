/**
 * The scheduler's alarms over `browser.alarms`. Firefox keeps alarms only while the add-on
 * runs; the job list in storage is what survives a restart, and `ScheduledJobManager.restore`
 * re-creates the alarms from it at start.
 */
import type { SchedulerAlarms } from "@webbrain/agent";

export const browserAlarms: SchedulerAlarms = {
  async set(name, at) {
    browser.alarms.create(name, { when: at });
  },
  async clear(name) {
    await browser.alarms.clear(name);
  },
};
