/**
 * Which tools a conversation gets, by mode (Ask / Act / Dev) and provider tier
 * (Compact / Mid / Full), and the execution-time re-check.
 *
 * Invariants:
 * - Ask is read-only: only `observe` tools plus the read-only network tools; never `clarify`,
 *   Dev tools, or anything that changes a page.
 * - hover and drag_drop exist only on Full (Act or Dev).
 * - Dev exists only on Mid/Full; asking for Dev on Compact is refused with a ModeTierError.
 * - `screenshot` is offered only to models that take images.
 * - `allowedTool` is what the executor calls for every call, whatever the model sends: the
 *   tool list given to the model is a hint, this check is the rule.
 */
import { AgentError } from "./errors.js";
import { TOOL_CATALOG, type ToolSpec, toolSpec } from "./tool-catalog.js";

export type Mode = "ask" | "act" | "dev";
export type Tier = "compact" | "mid" | "full";

export const MODES: readonly Mode[] = ["ask", "act", "dev"];
export const TIERS: readonly Tier[] = ["compact", "mid", "full"];

/** Small local models: the AX tools and the minimum to move around and finish. */
const COMPACT_ACT = [
  "get_accessibility_tree",
  "click_ax",
  "type_ax",
  "set_field",
  "read_page",
  "screenshot",
  "press_keys",
  "scroll",
  "navigate",
  "go_back",
  "wait_for_stable",
  "clarify",
  "done",
];

const MID_EXTRA = [
  "get_interactive_elements",
  "click",
  "type_text",
  "go_forward",
  "new_tab",
  "promote_iframe",
  "wait_for_element",
  "extract_data",
  "get_selection",
  "verify_form",
  "iframe_read",
  "iframe_click",
  "iframe_type",
  "fetch_url",
  "research_url",
  "list_downloads",
  "read_downloaded_file",
  "download_resource_from_page",
  "download_files",
  "upload_file",
];

/** Full Act only (spec 000): synthetic hover/drag, plus shadow/frame inspection. */
const FULL_EXTRA = ["hover", "drag_drop", "get_shadow_dom", "get_frames"];

/** Dev adds source/style tools and execute_js, and extends Mid with shadow/frame inspection. */
const DEV_EXTRA = [
  "read_page_source",
  "inspect_element_styles",
  "execute_js",
  "get_shadow_dom",
  "get_frames",
];

const ASK_BY_TIER: Record<Tier, string[]> = {
  compact: ["get_accessibility_tree", "read_page", "screenshot", "scroll", "wait_for_stable"],
  mid: [
    "get_accessibility_tree",
    "read_page",
    "screenshot",
    "get_interactive_elements",
    "scroll",
    "wait_for_stable",
    "extract_data",
    "get_selection",
    "iframe_read",
    "fetch_url",
    "research_url",
    "list_downloads",
    "read_downloaded_file",
  ],
  full: [
    "get_accessibility_tree",
    "read_page",
    "screenshot",
    "get_interactive_elements",
    "scroll",
    "wait_for_stable",
    "extract_data",
    "get_selection",
    "get_frames",
    "get_shadow_dom",
    "iframe_read",
    "fetch_url",
    "research_url",
    "list_downloads",
    "read_downloaded_file",
  ],
};

export interface ToolSelectionInput {
  mode: Mode;
  tier: Tier;
  /** The model takes images (screenshot is useless otherwise). */
  vision: boolean;
}

function namesFor({ mode, tier }: ToolSelectionInput): string[] {
  if (mode === "ask") return ASK_BY_TIER[tier];
  const act =
    tier === "compact"
      ? COMPACT_ACT
      : tier === "mid"
        ? [...COMPACT_ACT, ...MID_EXTRA]
        : [...COMPACT_ACT, ...MID_EXTRA, ...FULL_EXTRA];
  if (mode === "act") return act;
  if (tier === "compact") throw devOnCompact();
  return [...new Set([...act, ...DEV_EXTRA])];
}

export function devOnCompact(): AgentError {
  return new AgentError(
    "mode_tier",
    "Dev mode needs a Mid or Full provider tier; this provider is Compact. Switch to Act mode, or pick a larger model and set its tier to Mid or Full in the provider settings.",
  );
}

/** Tool names for this mode and tier, in catalog order. Throws ModeTierError for Compact Dev. */
export function toolNamesFor(input: ToolSelectionInput): string[] {
  const wanted = new Set(namesFor(input));
  if (!input.vision) wanted.delete("screenshot");
  return TOOL_CATALOG.filter((spec) => wanted.has(spec.name)).map((spec) => spec.name);
}

/** Tool specs for this mode and tier (what the model is offered). */
export function toolsFor(input: ToolSelectionInput): ToolSpec[] {
  return toolNamesFor(input).map((name) => toolSpec(name) as ToolSpec);
}

export type ToolPermit = { allowed: true } | { allowed: false; reason: string };

/** The execution-time rule: may this mode and tier run this tool? The reason is for the model. */
export function allowedTool(input: ToolSelectionInput, name: string): ToolPermit {
  const spec = toolSpec(name);
  if (!spec) return { allowed: false, reason: `Unknown tool "${name}". Use only the tools you were given.` };
  if (input.mode === "dev" && input.tier === "compact")
    return { allowed: false, reason: devOnCompact().message };
  if (toolNamesFor(input).includes(name)) return { allowed: true };
  if (input.mode === "ask") {
    return {
      allowed: false,
      reason: `${name} is refused: Ask mode is read-only. Answer from what you can read, or tell the user to switch to Act mode to ${spec.kind === "navigate" ? "navigate" : "act on the page"}.`,
    };
  }
  if (spec.kind === "dev")
    return { allowed: false, reason: `${name} is refused: it exists only in Dev mode.` };
  if (name === "screenshot")
    return { allowed: false, reason: "screenshot is refused: this model does not take images." };
  return {
    allowed: false,
    reason: `${name} is refused: not available to a ${input.tier} provider in ${input.mode} mode. Use the tools you were given.`,
  };
}
