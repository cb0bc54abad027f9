/**
 * Which of the mode's tools `webbrain mcp` lists: a client's model pays for the tool list on
 * every call (the task bench measured it at three quarters of all tokens sent), so the server
 * lists a core set by default and the rest by group, the way Playwright MCP has `--caps`.
 *
 * Invariants:
 * - A group only narrows what the mode and tier offer: Ask still lists no action tool.
 * - A tool the mode offers but no listed group names is refused when called, with the flag
 *   that serves it, so a client never runs what it was not shown.
 * - Skills' tools are always listed (the user asked for them with --skill).
 * - `done` and `clarify` end our own agent loop; over MCP the client is the agent, so they are
 *   listed only with `all`.
 */
import type { ToolName } from "@webbrain/agent";
import type { Mode } from "@webbrain/protocol";
import { UsageError } from "../errors.js";

export const MCP_TOOL_GROUPS = {
  core: [
    "get_accessibility_tree",
    "click_ax",
    "type_ax",
    "set_field",
    "hover",
    "press_keys",
    "scroll",
    "select_text",
    "read_page",
    "screenshot",
    "navigate",
    "go_back",
    "go_forward",
    "new_tab",
    "wait_for_stable",
    "wait_for_element",
    "pause_for_user",
  ],
  frames: ["get_frames", "iframe_read", "iframe_click", "iframe_type", "promote_iframe", "get_shadow_dom"],
  selectors: ["click", "type_text", "drag_drop"],
  forms: ["get_interactive_elements", "extract_data", "get_selection", "verify_form"],
  fetch: ["fetch_url", "research_url"],
  files: [
    "upload_file",
    "list_downloads",
    "read_downloaded_file",
    "download_resource_from_page",
    "download_files",
  ],
  history: ["search_history", "get_history_visits"],
  dev: ["execute_js", "read_page_source", "inspect_element_styles"],
} as const satisfies Record<string, readonly ToolName[]>;

export type McpToolGroup = keyof typeof MCP_TOOL_GROUPS;

const GROUP_NAMES = Object.keys(MCP_TOOL_GROUPS) as McpToolGroup[];

/** What `--tools` chose: every tool of the mode, or the tools of some groups. */
export type McpToolSelection = { all: true } | { all: false; groups: readonly McpToolGroup[] };

/** Without `--tools`: the core set, and the dev tools in Dev mode (the user asked for them). */
export function defaultMcpTools(mode: Mode): McpToolSelection {
  return { all: false, groups: mode === "dev" ? ["core", "dev"] : ["core"] };
}

/** `--tools core,frames` / `--tools all`; a UsageError naming the groups for anything else. */
export function parseMcpToolSelection(value: string | undefined, mode: Mode): McpToolSelection {
  if (value === undefined) return defaultMcpTools(mode);
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (names.includes("all")) return { all: true };
  const unknown = names.filter((name) => !isGroup(name));
  if (names.length === 0 || unknown.length > 0)
    throw new UsageError(
      `--tools ${JSON.stringify(value)}: expected a comma list of ${GROUP_NAMES.join(", ")}, or all (e.g. --tools core,frames).`,
    );
  return { all: false, groups: names as McpToolGroup[] };
}

/** Whether the selection lists this tool of the mode. */
export function isListed(selection: McpToolSelection, tool: string): boolean {
  if (selection.all) return true;
  return selection.groups.some((group) => (MCP_TOOL_GROUPS[group] as readonly string[]).includes(tool));
}

/** The refusal for a tool the mode offers but the selection does not list. */
export function unlistedToolMessage(selection: McpToolSelection, tool: string): string {
  const group = GROUP_NAMES.find((name) => (MCP_TOOL_GROUPS[name] as readonly string[]).includes(tool));
  const groups = selection.all ? [] : selection.groups;
  const flag = group ? `--tools ${[...groups, group].join(",")}` : "--tools all";
  return `${tool} is not served by this webbrain mcp (it lists ${describe(selection)}); start it with ${flag} to use it.`;
}

/** For the startup line: "core tools", "core,frames tools", "all tools". */
export function describe(selection: McpToolSelection): string {
  return selection.all ? "all tools" : `${selection.groups.join(",")} tools`;
}

function isGroup(name: string): name is McpToolGroup {
  return (GROUP_NAMES as string[]).includes(name);
}
