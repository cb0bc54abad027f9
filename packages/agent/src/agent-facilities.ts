/**
 * What the embedder gives the agent itself, beside the BrowserPort. A tool that runs in the agent
 * may need one (tool-catalog.ts `runs.requires`); it is offered, and allowed at execution, only
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

const WITH_SCHEDULER: AgentFacilities = new Set<AgentFacility>(["scheduler"]);

/** The facilities of an embedder's agent options: a scheduler when it gave one. */
export function agentFacilities(given: { scheduler?: object | undefined }): AgentFacilities {
  return given.scheduler ? WITH_SCHEDULER : NO_AGENT_FACILITIES;
}
