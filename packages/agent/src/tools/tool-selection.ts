/**
 * Which tools a conversation gets, by mode (Ask / Act / Dev), provider tier
 * (Compact / Mid / Full), the model's vision and the port's capabilities, and the
 * execution-time re-check. Every fact comes from the tool declarations (tool-catalog.ts).
 *
 * Invariants:
 * - Ask is read-only: only `observe` tools plus the read-only network tools (and, where the
 *   embedder has a scheduler, `schedule_task`, which schedules an Ask task at most); never
 *   `clarify`, Dev tools, or anything that changes a page.
 * - hover and drag_drop exist only on Full (Act or Dev).
 * - Dev exists only on Mid/Full; asking for Dev on Compact is refused with a ModeTierError.
 * - `screenshot` is offered only to models that take images.
 * - A tool is offered only when the port declares every capability it needs, and a tool the agent
 *   runs only when the embedder gives the agent what it requires (a scheduler).
 * - `allowedTool` is what the executor calls for every call, whatever the model sends: the
 *   tool list given to the model is a hint, this check is the rule.
 */
import {
  AGENT_FACILITIES,
  type AgentFacilities,
  type AgentFacility,
  BROWSER_CAPABILITIES,
  type BrowserCapabilities,
  type Mode,
  missingCapabilities,
  modeFitsTier,
  type Tier,
  tierRank,
} from "@webbrain/protocol";
import { AgentError } from "../errors.js";
import { TOOL_CATALOG, type ToolContract, toolSpec } from "./tool-catalog.js";

export interface ToolSelectionInput {
  mode: Mode;
  tier: Tier;
  /** The model takes images (screenshot is useless otherwise). */
  vision: boolean;
  /** What the browser port can run (BrowserPort.capabilities): a tool it cannot run is not offered. */
  capabilities: BrowserCapabilities;
  /** What the embedder gives the agent (a scheduler); none when absent. */
  facilities?: AgentFacilities;
}

/** What a tool the agent runs requires that the embedder did not give, in declared order. */
function missingFacilities(spec: ToolContract, have: AgentFacilities | undefined): AgentFacility[] {
  return spec.runs.in === "agent" ? spec.runs.requires.filter((name) => have?.has(name) !== true) : [];
}

/** Does this mode and tier offer the tool at all (before vision and capabilities)? */
export function offeredIn(spec: ToolContract, mode: Mode, tier: Tier): boolean {
  const lowest = spec.offer[mode];
  return lowest !== undefined && tierRank(tier) >= tierRank(lowest);
}

export function devOnCompact(): AgentError {
  return new AgentError(
    "mode_tier",
    "Dev mode needs a Mid or Full provider tier; this provider is Compact. Switch to Act mode, or pick a larger model and set its tier to Mid or Full in the provider settings.",
  );
}

/** Tool names for this mode, tier, model and port, in catalog order. Throws ModeTierError for Compact Dev. */
export function toolNamesFor(input: ToolSelectionInput): string[] {
  return toolsFor(input).map((spec) => spec.name);
}

/** Tool declarations for this mode, tier, model and port (what the model is offered). */
export function toolsFor(input: ToolSelectionInput): ToolContract[] {
  if (!modeFitsTier(input.mode, input.tier)) throw devOnCompact();
  return TOOL_CATALOG.filter(
    (spec) =>
      offeredIn(spec, input.mode, input.tier) &&
      (input.vision || !spec.vision) &&
      missingCapabilities(spec.needs, input.capabilities).length === 0 &&
      missingFacilities(spec, input.facilities).length === 0,
  );
}

/**
 * Tools this port never offers, in any mode or tier, because it lacks a capability they need:
 * the list each port's conformance test asserts and its README explains. Tools the agent runs
 * need no port capability, so they are never on it (the embedder decides those).
 */
export function toolsNotOffered(capabilities: BrowserCapabilities): string[] {
  return TOOL_CATALOG.filter((spec) => missingCapabilities(spec.needs, capabilities).length > 0).map(
    (spec) => spec.name,
  );
}

export type ToolPermit = { allowed: true } | { allowed: false; reason: string };

/** The execution-time rule: may this mode, tier and port run this tool? The reason is for the model. */
export function allowedTool(input: ToolSelectionInput, name: string): ToolPermit {
  const spec = toolSpec(name);
  if (!spec) return { allowed: false, reason: `Unknown tool "${name}". Use only the tools you were given.` };
  if (!modeFitsTier(input.mode, input.tier)) return { allowed: false, reason: devOnCompact().message };
  const offered = offeredIn(spec, input.mode, input.tier);
  if (offered && (input.vision || !spec.vision)) {
    const lacking = missingFacilities(spec, input.facilities);
    if (lacking.length > 0) {
      const cannot = lacking.map((facility) => AGENT_FACILITIES[facility]).join("; ");
      return {
        allowed: false,
        reason: `${name} is not available here (nothing here ${cannot}). Use the tools you were given.`,
      };
    }
    const missing = missingCapabilities(spec.needs, input.capabilities);
    if (missing.length === 0) return { allowed: true };
    if (missing.includes("person_at_hand"))
      return {
        allowed: false,
        reason: `${name} is refused: nobody is at hand to take over this run. Go on without a person, or call done saying what blocks you.`,
      };
    const cannot = missing.map((capability) => BROWSER_CAPABILITIES[capability]).join("; ");
    return {
      allowed: false,
      reason: `${name} is not supported by this browser (it cannot do this: ${cannot}). Use the tools you were given.`,
    };
  }
  if (input.mode === "ask") {
    return {
      allowed: false,
      reason: `${name} is refused: Ask mode is read-only. Answer from what you can read, or tell the user to switch to Act mode to ${spec.kind === "navigate" ? "navigate" : "act on the page"}.`,
    };
  }
  if (spec.kind === "dev")
    return { allowed: false, reason: `${name} is refused: it exists only in Dev mode.` };
  if (offered && spec.vision)
    return { allowed: false, reason: `${name} is refused: this model does not take images.` };
  return {
    allowed: false,
    reason: `${name} is refused: not available to a ${input.tier} provider in ${input.mode} mode. Use the tools you were given.`,
  };
}
