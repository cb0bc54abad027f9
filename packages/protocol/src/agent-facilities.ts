/**
 * What the embedder gives the agent itself, beside the BrowserPort. A tool that runs in the agent
 * may need one (its declaration's `runs.requires`); it is offered, and allowed at execution, only
 * when the embedder provides it. The add-on gives a scheduler (browser.alarms); the runner has
 * cron and gives none.
 */
export const AGENT_FACILITIES = {
  scheduler: "schedules tasks for later",
} as const;

export type AgentFacility = keyof typeof AGENT_FACILITIES;

/** What one embedder provides. */
export type AgentFacilities = ReadonlySet<AgentFacility>;

export const NO_AGENT_FACILITIES: AgentFacilities = new Set();
