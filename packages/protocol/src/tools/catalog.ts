/**
 * Every tool's contract, one list made of the families (tree.ts, input.ts, ...; each file small
 * enough to read at once), and what is derived from it: names by where they run, the page layer's
 * action names, the sets the runner routes by, lookup by name.
 *
 * Everything else derives from this list: tool selection and the execution gate (the agent's
 * tool-selection.ts), the agent's dispatch, the page actions a port is asked for, the page layer's
 * action table (typed `Record<PageLayerActionName, ...>` in packages/page/src/handle.ts, so a
 * missing action fails `tsc`), and the runner's trusted-input and shadow-root routing. Adding a
 * tool is its contract in a family file here plus its implementation where `runs` says; see
 * packages/agent/README.md.
 *
 * Descriptions are deliberately terse: the tool JSON is sent on every model call, and its size
 * is the user's main cost (see `npm run bench -w packages/agent`). Guidance that needs more
 * words lives once in the agent's system prompt, not repeated per tool.
 */
import type { ToolContract } from "./contract.js";
import { CONTROL_TOOLS } from "./control.js";
import { DEV_TOOLS } from "./dev.js";
import { DOWNLOADS_TOOLS } from "./downloads.js";
import { FRAMES_TOOLS } from "./frames.js";
import { PAGE_HELPERS } from "./helpers.js";
import { INPUT_TOOLS } from "./input.js";
import { NAVIGATION_TOOLS } from "./navigation.js";
import { NETWORK_TOOLS } from "./network.js";
import { READING_TOOLS } from "./reading.js";
import { TREE_TOOLS } from "./tree.js";

/** In the order the model sees them: the tree and ref input first (the preferred tools). */
const DECLARATIONS = [
  ...TREE_TOOLS,
  ...INPUT_TOOLS,
  ...READING_TOOLS,
  ...FRAMES_TOOLS,
  ...NAVIGATION_TOOLS,
  ...NETWORK_TOOLS,
  ...DOWNLOADS_TOOLS,
  ...DEV_TOOLS,
  ...CONTROL_TOOLS,
] as const;

type Declared = (typeof DECLARATIONS)[number];
/** One tool's declaration, with the types of its schemas (tool-details.ts reads them). */
export type ToolDeclaration = Declared;

/** Every declared tool's name. */
export type ToolName = Declared["name"];
/** Tools the page layer runs. */
export type PageToolName = Extract<Declared, { runs: { in: "page" } }>["name"];
/** Tools a port answers through `pageAction` without the page layer. */
export type PortActionToolName = Extract<Declared, { runs: { in: "port_action" } }>["name"];
/** Tools the agent's dispatch runs through a BrowserPort method. */
export type PortToolName = Extract<Declared, { runs: { in: "port" } }>["name"];
/** Tools the agent answers itself (the executor's table of them is keyed by these names). */
export type AgentToolName = Extract<Declared, { runs: { in: "agent" } }>["name"];

export const TOOL_CATALOG: readonly ToolContract[] = DECLARATIONS;

/** The declarations of the tools the page layer runs (page-calls.ts reads their arguments). */
export type PageToolDeclaration = Extract<Declared, { runs: { in: "page" } }>;
export const PAGE_TOOL_DECLARATIONS: readonly PageToolDeclaration[] = DECLARATIONS.filter(
  (d): d is PageToolDeclaration => d.runs.in === "page",
);

/**
 * Page actions that are not tools (helpers.ts): the agent's read-only probes and the follow-up
 * calls a port makes after pressing a plan or to map refs to elements.
 */
export type PageLayerHelperName = (typeof PAGE_HELPERS)[number]["name"];
export const PAGE_LAYER_HELPER_ACTIONS: readonly PageLayerHelperName[] = PAGE_HELPERS.map((h) => h.name);

/** Every action name the page layer implements: page tools and their helpers. */
export type PageLayerActionName = PageToolName | PageLayerHelperName;

/** Port actions that are not tools: the URL behind an element (download_resource_from_page). */
export const PORT_HELPER_ACTIONS = ["resolve_resource_url"] as const;

/** Every action name the page layer's table (packages/page/src/handle.ts ACTIONS) must have. */
export const PAGE_LAYER_ACTIONS: readonly PageLayerActionName[] = [
  ...PAGE_TOOL_DECLARATIONS.map((d) => d.name),
  ...PAGE_LAYER_HELPER_ACTIONS,
];

/** Actions a port answers itself, by declaration (the runner and the add-on route these). */
export const PORT_ACTIONS: readonly string[] = [
  ...DECLARATIONS.filter((d) => d.runs.in === "port_action").map((d) => d.name),
  ...PORT_HELPER_ACTIONS,
];

/** Page actions whose plan the runner presses with trusted input. */
export const TRUSTED_INPUT_ACTIONS: ReadonlySet<string> = new Set(
  DECLARATIONS.filter((d) => d.runs.in === "page" && d.runs.trustedInput).map((d) => d.name),
);

/** Page actions that look for elements: the runner exposes closed shadow roots first. */
export const SHADOW_SEARCHING_ACTIONS: ReadonlySet<string> = new Set(
  DECLARATIONS.filter((d) => d.runs.in === "page" && d.runs.searchesShadowRoots).map((d) => d.name),
);

const BY_NAME = new Map<string, ToolContract>(TOOL_CATALOG.map((spec) => [spec.name, spec]));

export function toolSpec(name: string): ToolContract | undefined {
  return BY_NAME.get(name);
}

/** Tools that only look: the loop detector skips them and Ask may use them. */
export function isObservation(name: string): boolean {
  return BY_NAME.get(name)?.kind === "observe";
}
