/**
 * The tool conformance calls: one call per declared tool on fixtures/conformance/tools.html,
 * shared by the runner's and the add-on's tool-conformance tests, so both ports are held to the
 * same calls. Each test asks its port which tools a mode and tier offer, calls those in
 * CONFORMANCE_ORDER with `conformanceArgs` (then `conformanceFollowUps`, if any), and fails on
 * an answer that says the tool is unknown or not supported.
 *
 * The order keeps the page usable: reading first, then typing and clicking, then frames,
 * network and downloads, and last the calls that leave the page (navigation, a new tab), hand
 * it to a person (pause_for_user: only ports given a person at hand offer it; the add-on's probe
 * stands in one who presses Continue at once) and end the turn
 * (clarify, done).
 */

/** What a conformance call needs of a tree node (@webbrain/protocol TreeNode, read by shape). */
export interface ConformanceNode {
  ref?: number;
  role: string;
  name: string;
}

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
  nodes: readonly ConformanceNode[];
  /** tools.html with its cross-origin frame. */
  pageUrl: string;
  /** Any URL on the fixture server's origin, for fetch/download calls. */
  url(path: string): string;
  /** Tools offered in this mode and tier (some calls adapt to what else is offered). */
  offered: ReadonlySet<string>;
  /** A download the port already has (read_downloaded_file, upload_file); tests start one first. */
  downloadId?: string;
  /**
   * The tool's declared example call (the agent catalog's `example`), for tools whose call needs
   * nothing of this page; testkit does not import the agent, so the test passes it in.
   */
  example: (tool: string) => Readonly<Record<string, unknown>> | undefined;
}

/** The fixture page's URL, with its frame on the other origin. */
export function conformancePageUrl(origin: string, crossOrigin: string): string {
  const frame = `${crossOrigin}/conformance/frame.html`;
  return `${origin}/conformance/tools.html?frame=${encodeURIComponent(frame)}`;
}

/** Frames are addressed by a piece of their URL: this one names the cross-origin frame. */
export const CONFORMANCE_FRAME_FILTER = "frame.html";
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

/** The arguments of one conformance call. */
export function conformanceArgs(tool: string, ctx: ConformanceContext): Record<string, unknown> {
  const ref = (role: string, name: string) => refByName(ctx.nodes, role, name);
  const frame = CONFORMANCE_FRAME_FILTER;
  const declared = ctx.example(tool);
  if (declared) return { ...declared };
  switch (tool) {
    case "wait_for_element":
      return { text: "Tool conformance", timeout_ms: 5_000 };
    case "type_ax":
      return { ref_id: ref("textbox", "Full name"), value: "Ada" };
    case "set_field":
      return { ref_id: ref("textbox", "Full name"), value: "Ada Lovelace" };
    case "type_text":
      return { selector: "#city", text: "Paris" };
    case "select_text":
      return { text: "Tool conformance" };
    case "click_ax":
      return { ref_id: ref("button", "Add note") };
    case "click":
      return { text: "Show more" };
    case "hover":
      return { ref_id: ref("button", "Hover for details") };
    case "drag_drop":
      return { from_ref_id: ref("button", "Drag card"), to_ref_id: ref("button", "Drop zone") };
    case "iframe_read":
      return { urlFilter: frame };
    case "iframe_type":
      return { urlFilter: frame, selector: "#code", text: "SPRING" };
    case "iframe_click":
      return { urlFilter: frame, selector: "#apply" };
    case "verify_form":
      // After iframe_type the frame must be verified (done refuses otherwise).
      return ctx.offered.has("iframe_type") ? { urlFilter: frame } : { selector: "#profile" };
    case "fetch_url":
      return { url: ctx.url("/conformance/data.json") };
    case "research_url":
      return { url: ctx.url("/conformance/frame.html") };
    case "download_files":
      return { urls: [ctx.url("/conformance/report.txt")] };
    case "download_resource_from_page":
      return { selector: "#report" };
    case "read_downloaded_file":
      return { id: ctx.downloadId ?? "" };
    case "upload_file":
      return { selector: "#attachment", downloadId: ctx.downloadId ?? "" };
    case "search_history":
      // The fixture page is open in this very tab, so the history has it.
      return { text: "conformance", days: 1 };
    case "get_history_visits":
      return { url: ctx.pageUrl };
    case "navigate":
      // Another URL than the one open, so go_back and go_forward have somewhere to go.
      return { url: `${ctx.pageUrl}&visit=2` };
    case "promote_iframe":
      return { url_filter: frame };
    case "new_tab":
      return { url: ctx.pageUrl };
    case "schedule_task":
      return {
        title: "Conformance",
        prompt: "Read the conformance page again",
        schedule: { type: "once", after_seconds: 3_600 },
        target: { type: "url", url: ctx.pageUrl },
      };
    default:
      return {};
  }
}

/**
 * The ref of the first node with this role whose name equals `name` (or, failing that, contains
 * it, case-insensitive). Throws with the candidates when nothing matches, so a failing call says why.
 */
export function refByName(nodes: readonly ConformanceNode[], role: string, name: string): number {
  const candidates = nodes.filter(
    (node): node is ConformanceNode & { ref: number } => node.ref !== undefined && node.role === role,
  );
  const lower = name.toLowerCase();
  const found =
    candidates.find((node) => node.name === name) ??
    candidates.find((node) => node.name.toLowerCase().includes(lower));
  if (found) return found.ref;
  const seen = candidates.map((node) => `[${node.ref}] ${role} "${node.name}"`).join("; ");
  throw new Error(`no ${role} named "${name}" in the tree (${role} nodes: ${seen || "none"})`);
}
