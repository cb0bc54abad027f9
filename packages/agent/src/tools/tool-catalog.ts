/**
 * Every tool, declared once: its model-facing schema (typebox, sent as JSON Schema), its kind,
 * the modes and tiers that offer it, whether it needs a model that takes images, the port
 * capabilities it needs, where it runs and who wrote the text its result carries.
 *
 * Everything else derives from this list: tool selection and the execution gate
 * (tool-selection.ts), the agent's dispatch (tool-dispatch.ts), the page actions a port is
 * asked for (PAGE_ACTIONS), the page layer's action table (checked against
 * PAGE_LAYER_ACTIONS by the runner's conformance test, since page and agent never import each
 * other), and the runner's trusted-input and shadow-root routing. Adding a tool is one
 * declaration here plus its implementation where `runs` says; see packages/agent/README.md.
 *
 * Descriptions are deliberately terse: the tool JSON is sent on every model call, and its size
 * is the user's main cost (see `npm run bench -w packages/agent`). Guidance that needs more
 * words lives once in the system prompt, not repeated per tool.
 *
 * Kinds drive the guards: `observe` tools read and never change the page ("looking is not
 * looping": the loop detector ignores them); `act` tools change the page; `navigate` changes
 * the URL; `network` reaches other origins; `download` saves files; `dev` only exists in Dev
 * mode; `control` ends or pauses the turn (`pause_for_user` waits for a person, then goes on),
 * or schedules work for later.
 */

import {
  type AgentFacility,
  type BrowserCapability,
  type Mode,
  modeSchema,
  type PermissionFacet,
  type Tier,
  type ToolFacets,
  TreeFilterSchema,
} from "@webbrain/protocol";
import { type TSchema, Type } from "typebox";

export type ToolKind = "observe" | "act" | "navigate" | "network" | "download" | "dev" | "control";

/**
 * Where a tool runs.
 * - `page`: the page layer's action of the same name (packages/page/src/handle.ts). `trustedInput`:
 *   the page answers a plan of clicks and keys and the runner presses it with BiDi input;
 *   `searchesShadowRoots`: it looks for elements, so the runner exposes closed shadow roots first.
 * - `port_action`: `BrowserPort.pageAction(name)`, answered by the port itself (frames in other
 *   origins, the page's own realm): not in the page layer.
 * - `port`: a BrowserPort method, called by the agent's dispatch (navigate, screenshot, fetch...).
 * - `agent`: the agent answers it (done, clarify, scheduling); `requires` names what the embedder
 *   must give the agent for it (AGENT_FACILITIES in @webbrain/protocol), else it is not offered.
 */
export type ToolRuns =
  | { in: "page"; trustedInput: boolean; searchesShadowRoots: boolean }
  | { in: "port_action" }
  | { in: "port" }
  | { in: "agent"; requires: readonly AgentFacility[] };

/**
 * Who wrote what the model reads. `page`: page or third-party text, wrapped as untrusted.
 * `agent`: no page text (scroll offsets, wait outcomes, key echoes), printed plain.
 * Either way the structured result goes to `details` whole (tool-result.ts).
 */
export type ResultTrust = "page" | "agent";

/** The lowest tier of a mode that offers the tool (every higher tier offers it too). */
export type ToolOffer = Partial<Record<Mode, Tier>>;

export interface ToolDeclaration<Name extends string = string, Runs extends ToolRuns = ToolRuns>
  extends ToolFacets {
  name: Name;
  kind: ToolKind;
  description: string;
  parameters: TSchema;
  /** Modes that offer the tool, each from its lowest tier up. Dev on Compact offers nothing. */
  offer: ToolOffer;
  /** Offered only to models that take images. */
  vision: boolean;
  /** The port must declare all of these (BrowserPort.capabilities). */
  needs: readonly BrowserCapability[];
  runs: Runs;
  result: ResultTrust;
}

/** Kept for callers that name the old type. */
export type ToolSpec = ToolDeclaration;

// No description: the argument's name says it, and this schema is sent ~20 times per call.
const ref = Type.Union([Type.Integer(), Type.String()]);
const optRef = Type.Optional(ref);
const str = (description?: string) => Type.String(description ? { description } : {});
const optStr = (description?: string) => Type.Optional(str(description));
const optNum = (description?: string) => Type.Optional(Type.Number(description ? { description } : {}));
const optBool = (description?: string) => Type.Optional(Type.Boolean(description ? { description } : {}));
const none = Type.Object({});
const resubmit = optBool("true only to deliberately repeat a submit that was blocked");

// Where tools run, named once.
const PAGE = { in: "page", trustedInput: false, searchesShadowRoots: false } as const;
const PAGE_SEARCH = { in: "page", trustedInput: false, searchesShadowRoots: true } as const;
const PAGE_INPUT = { in: "page", trustedInput: true, searchesShadowRoots: false } as const;
const PAGE_INPUT_SEARCH = { in: "page", trustedInput: true, searchesShadowRoots: true } as const;
const PORT_ACTION = { in: "port_action" } as const;
const PORT = { in: "port" } as const;
const AGENT = { in: "agent", requires: [] } as const;
const AGENT_SCHEDULER = { in: "agent", requires: ["scheduler"] } as const;

// Who offers tools, named once (spec 000's tool lists by mode and tier).
/** Every mode and tier: the AX tools and reading. */
const EVERYWHERE: ToolOffer = { ask: "compact", act: "compact", dev: "compact" };
/** Act and Dev on every tier, never Ask. */
const ACTING: ToolOffer = { act: "compact", dev: "compact" };
/** Act and Dev from Mid. */
const ACTING_MID: ToolOffer = { act: "mid", dev: "mid" };
/** Every mode from Mid (read-only tools Compact models do without). */
const READING_MID: ToolOffer = { ask: "mid", act: "mid", dev: "mid" };
/** Full Act only (spec 000: synthetic hover and drag). */
const FULL_ACT: ToolOffer = { act: "full", dev: "full" };
/** Shadow and frame inspection: Full in Ask and Act, and Dev from Mid. */
const INSPECTING: ToolOffer = { ask: "full", act: "full", dev: "mid" };
const DEV_ONLY: ToolOffer = { dev: "mid" };
const PAGE_LAYER = ["page_layer"] as const satisfies readonly BrowserCapability[];
const SCHEDULE_AFTER_SECONDS = "Seconds from now. 0 starts a task now.";
const SCHEDULE_RUN_AT = "ISO date-time, e.g. 2026-12-02T08:00:00Z.";

interface DeclarationInput<Runs extends ToolRuns> extends ToolFacets {
  kind: ToolKind;
  description: string;
  parameters: TSchema;
  offer: ToolOffer;
  needs: readonly BrowserCapability[];
  runs: Runs;
  result?: ResultTrust;
  vision?: boolean;
}

/**
 * The permission a kind asks for unless the declaration says otherwise (`permission` given, or
 * `null` for none): acting asks about the page, going somewhere or fetching about the URL.
 */
const KIND_PERMISSION: Partial<Record<ToolKind, PermissionFacet>> = {
  act: { capability: "interact", origin: "page" },
  navigate: { capability: "navigate", origin: "url" },
  network: { capability: "network", origin: "url" },
  download: { capability: "download", origin: "page" },
};

function tool<const Name extends string, const Runs extends ToolRuns>(
  name: Name,
  input: Omit<DeclarationInput<Runs>, "permission"> & { permission?: PermissionFacet | null },
): ToolDeclaration<Name, Runs> {
  const { permission, ...rest } = input;
  const asks = permission === undefined ? KIND_PERMISSION[input.kind] : (permission ?? undefined);
  return {
    name,
    ...rest,
    ...(asks ? { permission: asks } : {}),
    result: input.result ?? "page",
    vision: input.vision ?? false,
  };
}

const DECLARATIONS = [
  // Accessibility-tree tools (preferred).
  tool("get_accessibility_tree", {
    kind: "observe",
    description:
      'Indexed snapshot of the page: [ref] role "name" states. Parts that do not fit are folded into one line; pass its ref as ref_id to print that part. find/role: only matching lines. diff: only what changed since the last snapshot.',
    parameters: Type.Object({
      filter: Type.Optional(TreeFilterSchema),
      ref_id: optRef,
      max_chars: optNum(),
      find: optStr(),
      role: optStr(),
      diff: Type.Optional(Type.Boolean()),
    }),
    offer: EVERYWHERE,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
    refScopesRead: true,
    example: { filter: "interactive" },
  }),
  tool("click_ax", {
    kind: "act",
    description: "Click element by ref_id.",
    parameters: Type.Object({ ref_id: ref, _allowResubmit: resubmit }),
    offer: ACTING,
    needs: PAGE_LAYER,
    runs: PAGE_INPUT,
    replay: "replayed",
    sends: { trigger: "activates", target: "ref", label: "ref_name" },
  }),
  tool("type_ax", {
    kind: "act",
    description: "Replace a field's value by ref_id.",
    parameters: Type.Object({ ref_id: ref, value: str() }),
    offer: ACTING,
    needs: PAGE_LAYER,
    runs: PAGE_INPUT,
    typedArg: "value",
    replay: "typing",
    sends: { trigger: "typed_newline", target: "ref" },
  }),
  tool("set_field", {
    kind: "act",
    description:
      "Type into a field; submit:true commits a combobox option (ArrowDown+Enter) or submits the form.",
    parameters: Type.Object({ ref_id: ref, value: str(), submit: optBool() }),
    offer: ACTING,
    needs: PAGE_LAYER,
    runs: PAGE_INPUT,
    typedArg: "value",
    replay: "replayed",
    sends: { trigger: "submit_flag", target: "ref" },
  }),
  tool("hover", {
    kind: "act",
    description: "Hover an element.",
    parameters: Type.Object({ ref_id: ref }),
    offer: FULL_ACT,
    needs: PAGE_LAYER,
    runs: PAGE_INPUT,
    result: "agent",
    replay: "replayed",
  }),
  tool("drag_drop", {
    kind: "act",
    description:
      'Drag one element onto another (to_ref_id) or by dx,dy pixels; handle:"bottom_right" grabs its resize corner.',
    parameters: Type.Object({
      from_ref_id: ref,
      to_ref_id: optRef,
      dx: optNum(),
      dy: optNum(),
      handle: Type.Optional(Type.Enum(["center", "bottom_right"])),
    }),
    offer: FULL_ACT,
    needs: PAGE_LAYER,
    runs: PAGE_INPUT,
    result: "agent",
  }),
  // Page reading.
  tool("read_page", {
    kind: "observe",
    description: "Visible text of the page.",
    parameters: Type.Object({ max_chars: optNum() }),
    offer: EVERYWHERE,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
    refScopesRead: true,
    example: { max_chars: 2_000 },
  }),
  tool("screenshot", {
    kind: "observe",
    description: "Image of the viewport.",
    parameters: Type.Object({ full: optBool("whole page if supported") }),
    offer: EVERYWHERE,
    vision: true,
    needs: ["screenshot"],
    runs: PORT,
    onPage: true,
  }),
  tool("get_interactive_elements", {
    kind: "observe",
    description: "Indexed list of clickable/typeable elements.",
    parameters: Type.Object({ limit: optNum() }),
    offer: READING_MID,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
    example: { limit: 20 },
  }),
  // Legacy interaction.
  tool("click", {
    kind: "act",
    description: "Click by text, CSS selector, index (get_interactive_elements) or x,y.",
    parameters: Type.Object({
      text: optStr(),
      selector: optStr(),
      index: optNum(),
      x: optNum(),
      y: optNum(),
      match_index: optNum("pick one of several text matches"),
      _allowResubmit: resubmit,
    }),
    offer: ACTING_MID,
    needs: PAGE_LAYER,
    runs: PAGE_INPUT_SEARCH,
    replay: "replayed",
    sends: { trigger: "activates", target: "none", label: "text" },
  }),
  tool("type_text", {
    kind: "act",
    description: "Type text into a field (ref_id or selector; default: the focused field).",
    parameters: Type.Object({ text: str(), ref_id: optRef, selector: optStr(), clear: optBool() }),
    offer: ACTING_MID,
    needs: PAGE_LAYER,
    runs: PAGE_INPUT_SEARCH,
    typedArg: "text",
    replay: "typing",
    sends: { trigger: "typed_newline", target: "ref" },
  }),
  tool("press_keys", {
    kind: "act",
    description: "Press keys, e.g. Enter, Escape, Tab, Control+a.",
    parameters: Type.Object({ keys: str() }),
    offer: ACTING,
    needs: PAGE_LAYER,
    runs: PAGE_INPUT,
    result: "agent",
    replay: "replayed",
    sends: { trigger: "enter_key", target: "focus" },
    example: { keys: "Tab" },
  }),
  tool("scroll", {
    kind: "observe",
    description:
      "Scroll the page, an element into view (ref_id), or inside a scrollable element (ref_id with to/direction).",
    parameters: Type.Object({
      direction: Type.Optional(Type.Enum(["up", "down"])),
      amount: optNum("pixels"),
      to: Type.Optional(Type.Enum(["top", "bottom"])),
      ref_id: optRef,
    }),
    offer: EVERYWHERE,
    needs: PAGE_LAYER,
    runs: PAGE,
    result: "agent",
    replay: "replayed",
    example: { direction: "down", amount: 200 },
  }),
  tool("select_text", {
    kind: "act",
    description:
      "Select text as a person would: a field's value or an element's text (ref_id), or only the given text (found in the page without ref_id).",
    parameters: Type.Object({ ref_id: optRef, text: optStr() }),
    offer: ACTING,
    needs: PAGE_LAYER,
    runs: PAGE,
  }),
  tool("navigate", {
    kind: "navigate",
    description: "Open a URL in the current tab.",
    parameters: Type.Object({ url: str() }),
    offer: ACTING,
    needs: ["navigation"],
    runs: PORT,
    replay: "navigation",
    opensUrls: "url",
  }),
  tool("go_back", {
    kind: "navigate",
    description: "Browser back.",
    parameters: none,
    offer: ACTING,
    needs: ["navigation"],
    runs: PORT,
    replay: "navigation",
    // No URL to ask about: back and forward go where the user already was.
    permission: null,
  }),
  tool("go_forward", {
    kind: "navigate",
    description: "Browser forward.",
    parameters: none,
    offer: ACTING_MID,
    needs: ["navigation"],
    runs: PORT,
    replay: "navigation",
    permission: null,
  }),
  tool("new_tab", {
    kind: "navigate",
    description: "Open a URL in a new tab and continue there.",
    parameters: Type.Object({ url: str() }),
    offer: ACTING_MID,
    needs: ["tabs"],
    runs: PORT,
    opensUrls: "url",
  }),
  tool("promote_iframe", {
    kind: "navigate",
    description: "Open one child frame's URL in this tab.",
    parameters: Type.Object({ index: optNum(), url_filter: optStr() }),
    offer: ACTING_MID,
    needs: ["frame_promotion", "navigation"],
    runs: PORT_ACTION,
    // No URL argument: the frame is already on the page.
    permission: null,
  }),
  tool("wait_for_element", {
    kind: "observe",
    description: "Wait until a selector or text appears.",
    parameters: Type.Object({ selector: optStr(), text: optStr(), timeout_ms: optNum() }),
    offer: ACTING_MID,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
  }),
  tool("wait_for_stable", {
    kind: "observe",
    description: "Wait until the DOM and network settle.",
    parameters: Type.Object({ timeout_ms: optNum(), quiet_ms: optNum() }),
    offer: EVERYWHERE,
    needs: PAGE_LAYER,
    runs: PAGE,
    result: "agent",
    example: { quiet_ms: 100, timeout_ms: 5_000 },
  }),
  tool("extract_data", {
    kind: "observe",
    description:
      "Extract links, tables, headings, lists, images, meta or text, optionally under a ref_id/selector.",
    parameters: Type.Object({
      type: Type.Optional(Type.Enum(["links", "tables", "headings", "lists", "images", "meta", "text"])),
      ref_id: optRef,
      selector: optStr(),
      limit: optNum(),
    }),
    offer: READING_MID,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
    example: { type: "tables" },
  }),
  tool("get_selection", {
    kind: "observe",
    description: "Text the user has selected.",
    parameters: none,
    offer: READING_MID,
    needs: PAGE_LAYER,
    runs: PAGE,
  }),
  tool("verify_form", {
    kind: "observe",
    description: "Read form field values (and see the viewport) before submitting (urlFilter: in a frame).",
    parameters: Type.Object({ selector: optStr(), urlFilter: optStr() }),
    offer: ACTING_MID,
    needs: PAGE_LAYER,
    runs: PAGE,
    formCheck: "verifies",
  }),
  // Frames and shadow DOM.
  tool("get_shadow_dom", {
    kind: "observe",
    description: "Read open shadow roots under an element (default: the page).",
    parameters: Type.Object({ ref_id: optRef }),
    offer: INSPECTING,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
  }),
  tool("get_frames", {
    kind: "observe",
    description: "List frames with their URLs.",
    parameters: none,
    offer: INSPECTING,
    needs: PAGE_LAYER,
    runs: PAGE,
  }),
  tool("iframe_read", {
    kind: "observe",
    description: "Read a frame's fields and text.",
    parameters: Type.Object({ urlFilter: optStr(), index: optNum(), ref_id: optRef }),
    offer: READING_MID,
    needs: PAGE_LAYER,
    runs: PAGE,
  }),
  tool("iframe_click", {
    kind: "act",
    description: "Click in a frame.",
    parameters: Type.Object({
      urlFilter: optStr(),
      selector: optStr(),
      text: optStr(),
      matchIndex: optNum(),
    }),
    offer: ACTING_MID,
    needs: ["page_layer", "frame_input"],
    runs: PORT_ACTION,
    sends: { trigger: "activates", target: "none" },
  }),
  tool("iframe_type", {
    kind: "act",
    description: "Type in a frame; then verify_form with the same urlFilter.",
    parameters: Type.Object({ urlFilter: optStr(), selector: str(), text: str(), matchIndex: optNum() }),
    offer: ACTING_MID,
    needs: ["page_layer", "frame_input"],
    runs: PORT_ACTION,
    formCheck: "unverified",
  }),
  // Network.
  tool("fetch_url", {
    kind: "network",
    description:
      "HTTP request. POST/PUT/PATCH/DELETE need the user's /allow-api. In Ask mode only a URL the user gave or a link on the page (exactly), with cookies only for the user's sites.",
    parameters: Type.Object({
      url: str(),
      method: optStr(),
      headers: Type.Optional(Type.Record(Type.String(), Type.String())),
      body: optStr(),
    }),
    offer: READING_MID,
    needs: ["http_fetch"],
    runs: PORT,
    opensUrls: "url",
  }),
  tool("research_url", {
    kind: "network",
    description:
      "Open a URL in the background and read it. In Ask mode only a URL the user gave or a link on the page (exactly), with cookies only for the user's sites.",
    parameters: Type.Object({ url: str() }),
    offer: READING_MID,
    needs: ["research"],
    runs: PORT,
    opensUrls: "url",
  }),
  // Downloads.
  tool("list_downloads", {
    kind: "observe",
    description: "Recent downloads.",
    parameters: Type.Object({ limit: optNum() }),
    offer: READING_MID,
    needs: ["downloads"],
    runs: PORT,
    example: { limit: 5 },
  }),
  tool("read_downloaded_file", {
    kind: "observe",
    description: "Read a downloaded file.",
    parameters: Type.Object({ id: str() }),
    offer: READING_MID,
    needs: ["downloads"],
    runs: PORT,
  }),
  tool("download_resource_from_page", {
    kind: "download",
    description: "Download the file behind an element.",
    parameters: Type.Object({ ref_id: optRef, selector: optStr(), filename: optStr() }),
    offer: ACTING_MID,
    needs: ["resource_url", "download"],
    runs: PORT,
    onPage: true,
  }),
  tool("download_files", {
    kind: "download",
    description: "Download URLs.",
    parameters: Type.Object({ urls: Type.Array(Type.String()) }),
    offer: ACTING_MID,
    needs: ["download"],
    runs: PORT,
    opensUrls: "urls",
  }),
  tool("upload_file", {
    kind: "act",
    description: "Put a file into a file input, or drop it on a drop zone (drop: true).",
    parameters: Type.Object({
      ref_id: optRef,
      selector: optStr(),
      downloadId: optStr("a file this run downloaded (from list_downloads)"),
      path: optStr("a file the user gave for upload, as the user named it"),
      drop: optBool("drop the file on this element (a drop zone with no file input)"),
    }),
    offer: ACTING_MID,
    needs: ["file_upload"],
    runs: PORT,
    replay: "replayed",
    sends: { trigger: "uploads", target: "none" },
    preflight: "upload",
    permission: { capability: "upload", origin: "page" },
    onPage: true,
  }),
  // The user's browsing history (spec 000: "browser-history tools"). Read-only, so Ask has them.
  tool("search_history", {
    kind: "observe",
    description: "Search the user's browsing history by words in URL or title (empty: recent pages).",
    parameters: Type.Object({
      text: optStr(),
      days: optNum("only the last N days (default 7)"),
      max_results: optNum(),
    }),
    offer: READING_MID,
    needs: ["history"],
    runs: PORT,
  }),
  tool("get_history_visits", {
    kind: "observe",
    description: "When and how the user visited one URL (from search_history).",
    parameters: Type.Object({ url: str() }),
    offer: READING_MID,
    needs: ["history"],
    runs: PORT,
  }),
  // Dev.
  tool("read_page_source", {
    kind: "dev",
    description: "HTML source of the page or an element.",
    parameters: Type.Object({ ref_id: optRef, selector: optStr(), max_chars: optNum() }),
    offer: DEV_ONLY,
    needs: PAGE_LAYER,
    runs: PAGE,
    example: { selector: "h1" },
  }),
  tool("inspect_element_styles", {
    kind: "dev",
    description: "Computed styles and box of an element.",
    parameters: Type.Object({ ref_id: optRef, selector: optStr() }),
    offer: DEV_ONLY,
    needs: PAGE_LAYER,
    runs: PAGE,
    example: { selector: "h1" },
  }),
  tool("execute_js", {
    kind: "dev",
    description: "Run JavaScript in the page; returns its JSON result.",
    parameters: Type.Object({ code: str() }),
    offer: DEV_ONLY,
    needs: ["execute_js"],
    runs: PORT_ACTION,
    permission: { capability: "execute_js", origin: "page" },
    example: { code: "document.title" },
  }),
  // Scheduling (where the embedder gives the agent a scheduler: the add-on).
  tool("schedule_task", {
    kind: "control",
    description:
      "Schedule a standalone task to run later, once or every N minutes, in this tab or in a background tab on a URL. Only when the user explicitly asks for scheduled or recurring work.",
    parameters: Type.Object({
      title: optStr("Short name shown in the job list."),
      prompt: str("The full task, written as the user would ask it."),
      // `type` may be left out: interval_minutes means recurring, else once (job-input.ts).
      schedule: Type.Object({
        type: Type.Optional(Type.Enum(["once", "recurring"])),
        after_seconds: optNum(SCHEDULE_AFTER_SECONDS),
        run_at: optStr(SCHEDULE_RUN_AT),
        interval_minutes: optNum("For recurring: minutes between runs."),
      }),
      target: Type.Optional(
        Type.Object(
          {
            type: Type.Optional(Type.Enum(["current_tab", "url"])),
            url: optStr(),
          },
          {
            description:
              'Where it runs: {"type":"current_tab"} (default) or {"type":"url","url":"https://..."}.',
          },
        ),
      ),
      mode: Type.Optional(modeSchema({ description: "Default act (never above this chat's)." })),
    }),
    offer: EVERYWHERE,
    needs: [],
    runs: AGENT_SCHEDULER,
    result: "agent",
  }),
  tool("schedule_resume", {
    kind: "control",
    description:
      "Pause this task and resume it later in this tab, when it waits on something external (a build, an email, a deploy). Ends the current run.",
    parameters: Type.Object({
      after_seconds: optNum(SCHEDULE_AFTER_SECONDS),
      run_at: optStr(SCHEDULE_RUN_AT),
      reason: str("What the task is waiting for."),
      resume_instruction: optStr("What to do first when it resumes."),
    }),
    offer: ACTING,
    needs: [],
    runs: AGENT_SCHEDULER,
    result: "agent",
    example: { reason: "waiting for the conformance report", after_seconds: 3_600 },
  }),
  // Control.
  tool("pause_for_user", {
    kind: "control",
    description:
      "Hand the browser to the person at hand for what only they can do (log in, captcha, 2FA); waits until they resume.",
    parameters: Type.Object({ message: str("what to do, e.g. Solve the captcha, then press Enter") }),
    offer: ACTING,
    needs: ["person_at_hand"],
    runs: PORT,
    result: "agent",
    example: { message: "Solve the captcha, then press Enter." },
  }),
  tool("clarify", {
    kind: "control",
    description: "Ask the user one question and wait.",
    parameters: Type.Object({ question: str() }),
    offer: ACTING,
    needs: [],
    runs: AGENT,
    result: "agent",
    example: { question: "Which voucher?" },
  }),
  tool("done", {
    kind: "control",
    description: "Finish: say what was done and how you verified it.",
    parameters: Type.Object({ summary: str() }),
    offer: ACTING,
    needs: [],
    runs: AGENT,
    result: "agent",
    example: { summary: "Called every tool once; the status line shows each effect." },
  }),
] as const;

type Declared = (typeof DECLARATIONS)[number];

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

export const TOOL_CATALOG: readonly ToolDeclaration[] = DECLARATIONS;

/**
 * Page actions that are not tools: the agent's read-only probes (behind blockedDone, and the
 * recipient guard's conversation_header: where each heading is drawn), and the
 * follow-up calls the runner makes after pressing a plan (verify the effect, the keys, a
 * field's value) or to map refs to elements. The page layer implements all of them.
 */
export const PAGE_LAYER_HELPER_ACTIONS = [
  "probe_completion",
  "verify_effect",
  "verify_keys",
  "refs_of",
  "check_value",
  "conversation_header",
] as const;

/** Every action name the page layer implements: page tools and their helpers. */
export type PageLayerActionName = PageToolName | (typeof PAGE_LAYER_HELPER_ACTIONS)[number];

/** Port actions that are not tools: the URL behind an element (download_resource_from_page). */
export const PORT_HELPER_ACTIONS = ["resolve_resource_url"] as const;

/** Every action name the page layer's table (packages/page/src/handle.ts ACTIONS) must have. */
export const PAGE_LAYER_ACTIONS: readonly PageLayerActionName[] = [
  ...DECLARATIONS.filter((d): d is Extract<Declared, { runs: { in: "page" } }> => d.runs.in === "page").map(
    (d) => d.name,
  ),
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

const BY_NAME = new Map<string, ToolDeclaration>(TOOL_CATALOG.map((spec) => [spec.name, spec]));

export function toolSpec(name: string): ToolDeclaration | undefined {
  return BY_NAME.get(name);
}

/** Tools that only look: the loop detector skips them and Ask may use them. */
export function isObservation(name: string): boolean {
  return BY_NAME.get(name)?.kind === "observe";
}
