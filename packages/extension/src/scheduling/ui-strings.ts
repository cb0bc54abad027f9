/**
 * Every user-facing string of the scheduled-jobs UI and of scheduled runs, in one place, so the
 * add-on's localization can move them to `_locales` without hunting through the code.
 */
export const SCHEDULING_STRINGS = {
  jobsHeading: "Scheduled",
  noJobs: "No scheduled tasks for this tab.",
  kindTask: "Task",
  kindResume: "Resume",
  everyMinutes: (minutes: number) => `every ${minutes} min`,
  nextRun: (when: string) => `Next: ${when}`,
  lastResult: (status: string, text: string) => `Last: ${status}${text ? ` (${text})` : ""}`,
  notRunYet: "Not run yet",
  cancel: "Cancel",
  exportJob: "Export",
  exportJobTitle:
    "Save this task as a job file that `webbrain run --job FILE` runs (e.g. from cron on a server)",
  cancelled: "Cancelled",
  state: (state: string) => state.replace(/_/g, " "),
  /** How a scheduled run's opening message shows in the chat. */
  scheduledRunOpening: (title: string, prompt: string) => `⏰ Scheduled task “${title}”\n${prompt}`,
  scheduledResumeOpening: (title: string) => `⏰ Resuming (${title})`,
  ownerTabClosed: "The tab that scheduled this task is closed; open the page again and schedule it anew.",
  targetTabDidNotLoad: (url: string) => `The page ${url} did not finish loading.`,
  runDidNotStart: (why: string) => `The scheduled run could not start: ${why}`,
} as const;
