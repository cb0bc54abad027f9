/**
 * The facilities (AGENT_FACILITIES in @webbrain/protocol) an embedder's agent options give: a
 * tool that runs in the agent and requires one is offered, and allowed at execution, only then.
 */
import { type AgentFacilities, type AgentFacility, NO_AGENT_FACILITIES } from "@webbrain/protocol";

const WITH_SCHEDULER: AgentFacilities = new Set<AgentFacility>(["scheduler"]);

/** The facilities of an embedder's agent options: a scheduler when it gave one. */
export function agentFacilities(given: { scheduler?: object | undefined }): AgentFacilities {
  return given.scheduler ? WITH_SCHEDULER : NO_AGENT_FACILITIES;
}
