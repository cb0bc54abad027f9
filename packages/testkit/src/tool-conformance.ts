/**
 * The tool conformance run, shared by the runner's and the add-on's tool-conformance tests so
 * both ports are held to the same calls: each test asks its port which tools a mode and tier
 * offer, calls those in CONFORMANCE_ORDER on fixtures/conformance/tools.html, each with exactly
 * its contract's example (`conformanceArgs`: @webbrain/protocol's `example`, its placeholders
 * resolved on this page), then `conformanceFollowUps`, if any, and fails on an answer that says
 * the tool is unknown or not supported.
 *
 * What is here is about the run, not the tools: the order keeps the page usable (reading first,
 * then typing and clicking, then frames, network and downloads, and last the calls that leave
 * the page (navigation, a new tab), hand it to a person (pause_for_user: only ports given a
 * person at hand offer it; the add-on's probe stands in one who presses Continue at once) and
 * end the turn (clarify, done)); the follow-ups reach paths one call does not.
 */
import {
  detailsMismatches,
  EXAMPLE_FRAME_FILTER,
  type ExamplePage,
  MODES,
  type Mode,
  modeFitsTier,
  resolveExample,
  TIERS,
  type Tier,
  toolSpec,
} from "@webbrain/protocol";
import { type NamedNode, refByName } from "./tree-refs.js";

export const CONFORMANCE_ORDER = [
  "get_accessibility_tree",
  "read_page",
  "get_interactive_elements",
  "extract_data",
  "get_selection",
  "get_shadow_dom",
  "get_frames",
  "scroll",
  "wait_for_element",
  "wait_for_stable",
  "screenshot",
  "read_page_source",
  "inspect_element_styles",
  "execute_js",
  "type_ax",
  "set_field",
  "type_text",
  "press_keys",
  "select_text",
  "click_ax",
  "click",
  "hover",
  "drag_drop",
  "iframe_read",
  "iframe_type",
  "iframe_click",
  "verify_form",
  "fetch_url",
  "research_url",
  "download_files",
  "download_resource_from_page",
  "list_downloads",
  "read_downloaded_file",
  "upload_file",
  "search_history",
  "get_history_visits",
  "navigate",
  "go_back",
  "go_forward",
  "promote_iframe",
  "new_tab",
  "pause_for_user",
  "schedule_task",
  "schedule_resume",
  "clarify",
  "done",
] as const;

/**
 * Tools a port does not offer, with the reason (each port's conformance test asserts its list
 * exactly, so a capability that drifts fails there).
 */
export const NOT_OFFERED: Record<"runner" | "addon", Record<string, string>> = {
  runner: {
    search_history:
      "The runner drives a Firefox it launched (a temporary profile) over WebDriver BiDi, which has no command to read a profile's history; the user's own history lives in their Firefox, where the add-on reads it.",
    get_history_visits: "As search_history: WebDriver BiDi cannot read a profile's history.",
  },
  // The sidebar is the person at hand: every run's port offers pause_for_user (its take-over card).
  addon: {},
};

/** Answers that mean the port or the page layer does not have the tool: never acceptable. */
export const UNSUPPORTED_ANSWER = /unknown (page )?action|unknown tool|not supported|not implemented/i;

export interface ConformanceContext {
  /** The fixture page's tree as nodes (get_accessibility_tree with `nodes: true`): refs by role and name. */
  nodes: readonly NamedNode[];
  /** tools.html with its cross-origin frame. */
  pageUrl: string;
  /** Any URL on the fixture server's origin, for fetch/download calls. */
  url(path: string): string;
  /** Tools offered in this mode and tier (some follow-ups depend on what else is offered). */
  offered: ReadonlySet<string>;
  /** A download the port already has (read_downloaded_file, upload_file); tests start one first. */
  downloadId?: string;
}

/** The fixture page's URL, with its frame on the other origin. */
export function conformancePageUrl(origin: string, crossOrigin: string): string {
  const frame = `${crossOrigin}/conformance/frame.html`;
  return `${origin}/conformance/tools.html?frame=${encodeURIComponent(frame)}`;
}

/** Frames are addressed by a piece of their URL: this one names the cross-origin frame (the examples' own). */
export const CONFORMANCE_FRAME_FILTER = EXAMPLE_FRAME_FILTER;
/** tools.html's same-origin frame (a static one: its first document is about:blank). */
export const CONFORMANCE_SAME_ORIGIN_FRAME_FILTER = "same-origin-form.html";

/** The download link on tools.html: a follow-up click on it must report the download it started. */
export const CONFORMANCE_DOWNLOAD_LINK = "Download report";

/**
 * Calls of a tool after its first one, for paths one call does not reach: iframe_type also
 * types into the same-origin frame (issue 27: only the cross-origin path worked), verify_form
 * then checks that frame too (done refuses a frame typed into and not verified), click
 * follows the download link, whose result must report the download (issue 23: same fields on
 * both ports), and screenshot also takes the full page.
 */
export function conformanceFollowUps(tool: string, ctx: ConformanceContext): Record<string, unknown>[] {
  const frame = CONFORMANCE_SAME_ORIGIN_FRAME_FILTER;
  switch (tool) {
    case "iframe_type":
      return [{ urlFilter: frame, selector: "#coupon", text: "SUMMER" }];
    case "verify_form":
      return ctx.offered.has("iframe_type") ? [{ urlFilter: frame }] : [];
    case "click":
      return [{ text: CONFORMANCE_DOWNLOAD_LINK }];
    case "screenshot":
      // Both ports capture the whole document (the add-on through captureTab's rect).
      return [{ full: true }];
    default:
      return [];
  }
}

/** What tools.html gives an example's placeholders on this run (@webbrain/protocol tools/example.ts). */
export function conformancePage(ctx: ConformanceContext): ExamplePage {
  return {
    ref: (role, name) => refByName(ctx.nodes, role, name),
    originUrl: (path) => ctx.url(path),
    pageUrl: ctx.pageUrl,
    downloadId: ctx.downloadId,
  };
}

/** The arguments of one conformance call: exactly the tool's declared example, resolved on this page. */
export function conformanceArgs(tool: string, ctx: ConformanceContext): Record<string, unknown> {
  const spec = toolSpec(tool);
  if (!spec) throw new Error(`${tool} is not a declared tool`);
  return resolveExample(spec.example, conformancePage(ctx));
}

/** Every mode with each tier it runs on (`modeFitsTier`): the runs both ports' conformance tests make. */
export const CONFORMANCE_COMBOS: readonly (readonly [Mode, Tier])[] = MODES.flatMap((mode) =>
  TIERS.filter((tier) => modeFitsTier(mode, tier)).map((tier) => [mode, tier] as const),
);

/** Where a result does not fit its tool's declared `details` (@webbrain/protocol), if anywhere. */
export function detailsProblem(tool: string, result: Record<string, unknown>): string | undefined {
  const spec = toolSpec(tool);
  const mismatches = spec ? detailsMismatches(spec.details, result) : [];
  return mismatches.length > 0 ? `details do not fit the contract: ${mismatches.join("; ")}` : undefined;
}
