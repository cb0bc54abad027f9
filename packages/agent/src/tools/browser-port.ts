/**
 * BrowserPort: the only way the agent reaches a browser.
 *
 * The runner (WebDriver BiDi) and the add-on (browser.tabs / executeScript) each implement this
 * once. The agent never touches the DOM or `browser.*` itself.
 *
 * Invariants every implementation keeps:
 * - No method throws for a failure the page or the user caused (missing element, stale ref,
 *   blocked navigation): it resolves `{ success: false, error }` with an error message that says
 *   what happened and what to do. Throwing is for a broken port (tab closed, browser gone).
 * - `pageAction` names are exactly the spec 000 tool names (plus `probe_completion`), and the
 *   params are the tool's arguments as the model sent them (`ref_id` may be a number or the
 *   numeric string printed in the tree).
 * - A stale ref answers `{ success: false, error: "stale ref ..." }`: the word `stale` is part of
 *   the public contract (DESIGN.md).
 * - Results are plain JSON (no class instances), so they can be persisted and sent to the model.
 */

import type { BrowserCapabilities, PageResult, ToolDetails } from "@webbrain/protocol";
import type { RequestCredentials } from "../guards/ask-fetch-policy.js";
import type { LocalFileAccess } from "../guards/url-policy.js";
import {
  type PageToolName,
  PORT_HELPER_ACTIONS,
  type PortActionToolName,
  TOOL_CATALOG,
} from "./tool-catalog.js";

/** A tab id. The add-on passes `String(tab.id)`; the runner passes the BiDi context id. */
export type TabId = string;

/** What the agent knows about a tab. */
export interface TabInfo {
  id: TabId;
  url: string;
  title: string;
  active: boolean;
}

/**
 * JSON values, and the result of a page action or a navigation: one JSON object with `success`
 * and, on failure, `error` and maybe a typed `code`; the action's details beside them (`tree`,
 * `text`, `candidates`, ...) and `meta` for code only (@webbrain/protocol page-answer.ts).
 */
export type { JsonValue, PageResult } from "@webbrain/protocol";

/**
 * Page actions by name, derived from the tool declarations (tool-catalog.ts): the tools that run
 * in the page layer or in the port's own page code, plus their helpers: `probe_completion`
 * (the read-only probe behind blockedDone: open dialogs, visible forms, live-region messages)
 * and `resolve_resource_url` (the URL behind an element, for download_resource_from_page).
 */
export type PageActionName =
  | PageToolName
  | PortActionToolName
  | "probe_completion"
  | "conversation_header"
  | (typeof PORT_HELPER_ACTIONS)[number];

/**
 * Actions a port answers itself, not the page layer: the tools declared `port_action` and their
 * helpers. Each port routes them through a `Record<PortActionName, ...>`, so a new declaration
 * without a route in a port does not compile.
 */
export type PortActionName = PortActionToolName | (typeof PORT_HELPER_ACTIONS)[number];

/** The route of `action` in a port's table, if the table has one (own keys only). */
export function routeOf<Route>(table: Partial<Record<string, Route>>, action: string): Route | undefined {
  return Object.hasOwn(table, action) ? table[action] : undefined;
}

export const PAGE_ACTIONS: readonly PageActionName[] = [
  ...TOOL_CATALOG.filter((spec) => spec.runs.in === "page" || spec.runs.in === "port_action").map(
    (spec) => spec.name as PageActionName,
  ),
  "probe_completion",
  "conversation_header",
  ...PORT_HELPER_ACTIONS,
];

/**
 * What `probe_completion` answers besides `success`, as its contract declares (@webbrain/protocol
 * helpers.ts): open dialogs, visible forms by counts of fields, live-region messages. blockedDone
 * refuses `done` while a dialog is open, a changed form shows invalid fields, or an alert reports
 * an error.
 */
export type CompletionProbe = ToolDetails<"probe_completion">;

export interface Screenshot {
  mimeType: "image/png" | "image/jpeg" | "image/webp";
  /** Image bytes, base64 without a `data:` prefix. */
  dataBase64: string;
  width?: number;
  height?: number;
}

/**
 * Options every BrowserPort call accepts as its last argument. Implementations written before it
 * existed still compile (a method may take fewer parameters), but a port that ignores `signal`
 * leaves Firefox working after Stop.
 */
export interface PortCallOptions {
  /**
   * Stop: when it fires, the call ends the work it started in the browser (BiDi commands
   * abandoned, page waits and input plans cut short, nothing more pressed) and rejects at once
   * (the runner: BidiAbortError, `code` "aborted"; the add-on: an error named "AbortError"). The
   * agent does not read the error: its own race on the signal ends the step.
   */
  signal?: AbortSignal;
}

export interface ScreenshotOptions extends PortCallOptions {
  /** The whole page rather than the viewport (a port without `full_page_screenshot` answers the viewport). */
  full?: boolean;
  /**
   * A JPEG at this quality (0..1) instead of the port's default format: the small images a
   * trace keeps per step. A port that cannot encode JPEG answers its default format.
   */
  jpegQuality?: number;
}

/** A request for `fetch_url`. The agent has already enforced `/allow-api` for mutating methods. */
export interface FetchRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Give up after this long (milliseconds). */
  timeoutMs?: number;
  /** Stop reading the body past this many characters and set `truncated`. */
  maxChars?: number;
  /** "omit": send none of the user's cookies (Ask, to a site the user did not give); default "include". */
  credentials?: RequestCredentials;
}

export interface FetchResponse {
  status: number;
  statusText: string;
  /** Final URL after redirects. */
  url: string;
  headers: Record<string, string>;
  /** The body as text (binary bodies: a short description instead). */
  body: string;
  truncated: boolean;
}

export interface ResearchOptions extends PortCallOptions {
  /** Stop reading the page text past this many characters. */
  maxChars?: number;
  timeoutMs?: number;
  /** "omit": open the page without the user's cookies (Ask, to a site the user did not give). */
  credentials?: RequestCredentials;
}

/** Open a URL in a background tab, read it, close the tab: `research_url`. */
export interface ResearchResult extends PageResult {
  url?: string;
  title?: string;
  text?: string;
}

export interface DownloadInfo {
  id: string;
  url: string;
  filename: string;
  mime?: string;
  bytes?: number;
  state: "in_progress" | "complete" | "interrupted";
  startTime?: string;
}

export interface DownloadContent {
  id: string;
  filename: string;
  mime?: string;
  /** Text files: the text. Binary files: base64 with `encoding: "base64"`. */
  content: string;
  encoding: "utf8" | "base64";
  truncated: boolean;
}

export interface NewTabOptions extends PortCallOptions {
  /** Bring the tab to the front (default false: agent tabs open in the background). */
  active?: boolean;
  /**
   * Open it in the window that holds this tab (default: the window the browser picks, the one
   * last focused). An attached client's tabs stay in the window the person gave it. A port whose
   * tabs all share one window may ignore it.
   */
  besideTab?: TabId;
}

export interface UploadRequest {
  /** The file input, as a ref from the tree or a CSS selector. */
  ref_id?: number | string;
  selector?: string;
  /** A previous download to upload again (add-on and runner). */
  downloadId?: string;
  /**
   * A file the user gave: on the runner a path under --upload-dir or given with --attach, in the
   * add-on the name of a file offered in the sidebar ("For the page").
   */
  path?: string;
  /** Drop the file on the element (a page's drop zone) instead of putting it in a file input. */
  drop?: boolean;
}

/**
 * What upload_file would send, known before the permission gate asks (BrowserPort.checkUpload):
 * the file's name and size for the prompt, or a typed refusal (`code`) whose error says what to
 * do, for a file the user did not give.
 */
export type UploadPreview =
  | { ok: true; file: string; bytes?: number }
  | { ok: false; code: string; error: string };

/** How a pause_for_user ended (an abort rejects instead, like any port call on Stop). */
export interface PersonAnswer {
  /** true: the person handed back (pressed Enter); false: nobody can answer (input closed). */
  resumed: boolean;
  /** What they typed before Enter, trimmed; empty when they only pressed Enter. */
  said: string;
}

/** A search of the user's browsing history (search_history). */
export interface HistoryQuery {
  /** Words matched against URLs and titles; empty: every page in the time range. */
  text: string;
  /** Only visits after this time (ms since the epoch). */
  startTime?: number;
  endTime?: number;
  maxResults?: number;
}

/**
 * History access (search_history, get_history_visits). Results are `PageResult`s: a person who
 * refuses the browser's history permission is an answer (`success: false` with what to do), not
 * a broken port. `tabId` is the run's tab, where the port may ask the person for the permission.
 */
export interface HistoryAccess {
  /** `{ success, pages: [{url, title, lastVisit, visitCount}] }`, newest visit first. */
  searchHistory(tabId: TabId, query: HistoryQuery, options?: PortCallOptions): Promise<PageResult>;
  /** `{ success, url, visits: [{time, transition}] }`, newest first. */
  historyVisits(tabId: TabId, url: string, options?: PortCallOptions): Promise<PageResult>;
}

export interface BrowserPort {
  /**
   * What this port can run. The agent offers a tool only when every capability it needs is
   * here, and checks again before running it; declare only what a real call through this port
   * does (the conformance tests call every offered tool in real Firefox).
   */
  readonly capabilities: BrowserCapabilities;
  /**
   * Whether the user allowed local files (file: URLs) for this browser, and how they allow
   * them; absent: refused (url-policy.ts). The executor checks every URL against it.
   */
  readonly localFiles?: LocalFileAccess;

  listTabs(options?: PortCallOptions): Promise<TabInfo[]>;
  /** The tab the user is looking at, if any. */
  activeTab(options?: PortCallOptions): Promise<TabInfo | undefined>;
  /** Current URL and title of a tab. Throws if the tab is gone. */
  getTab(tabId: TabId, options?: PortCallOptions): Promise<TabInfo>;

  /** Navigate and wait for the load to settle (or time out with `success: false`). */
  navigate(tabId: TabId, url: string, options?: PortCallOptions): Promise<PageResult>;
  goBack(tabId: TabId, options?: PortCallOptions): Promise<PageResult>;
  goForward(tabId: TabId, options?: PortCallOptions): Promise<PageResult>;
  newTab(url: string, options?: NewTabOptions): Promise<TabInfo>;
  /** Resolves once the tab's next navigation commits, or with `success: false` after timeoutMs. */
  waitForNavigation?(tabId: TabId, timeoutMs: number, options?: PortCallOptions): Promise<PageResult>;

  /** Run one page action (see PAGE_ACTIONS) with the tool's arguments. */
  pageAction(
    tabId: TabId,
    action: PageActionName,
    params: Record<string, unknown>,
    options?: PortCallOptions,
  ): Promise<PageResult>;

  screenshot(tabId: TabId, options?: ScreenshotOptions): Promise<Screenshot>;

  fetchUrl(request: FetchRequest, options?: PortCallOptions): Promise<FetchResponse>;
  researchUrl(url: string, options?: ResearchOptions): Promise<ResearchResult>;

  listDownloads(options?: { limit?: number }): Promise<DownloadInfo[]>;
  readDownload(id: string, options?: { maxChars?: number }): Promise<DownloadContent>;
  /** Start a download of a URL (download_resource_from_page, download_files). */
  download?(url: string, filename?: string, options?: PortCallOptions): Promise<DownloadInfo>;
  /** Put a file into a file input (upload_file). */
  uploadFile?(tabId: TabId, request: UploadRequest, options?: PortCallOptions): Promise<PageResult>;
  /**
   * Which file upload_file would send, checked before the permission gate asks, so the prompt
   * names the file and nobody is asked about a file that would be refused anyway. Ports
   * without it check in uploadFile only.
   */
  checkUpload?(tabId: TabId, request: UploadRequest, options?: PortCallOptions): Promise<UploadPreview>;
  /**
   * Show the person at hand `message` and wait until they hand back (pause_for_user). Only a
   * port that declares `person_at_hand` has it; it may wait as long as the person takes.
   */
  pauseForUser?(message: string, options?: PortCallOptions): Promise<PersonAnswer>;
  /** The user's browsing history (ports that declare the `history` capability). */
  history?: HistoryAccess;
}
