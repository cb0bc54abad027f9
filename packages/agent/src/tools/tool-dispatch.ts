/**
 * Runs one already-permitted tool call against the BrowserPort and renders its result.
 * All gating (mode, plan, guards, permissions, capabilities) happened before this in the
 * executor; this module only maps a tool to port calls, as its declaration says: `page` and
 * `port_action` tools go to `BrowserPort.pageAction` by name, `port` tools to their handler in
 * PORT_TOOL_HANDLERS (typed by the declarations, so a `port` tool without a handler does not
 * compile), and the declaration's `result` says whether its text is wrapped as untrusted.
 *
 * Invariant: a port failure (thrown error) becomes a failed tool result the model can read,
 * never an exception out of the loop: the run goes on and the model can adapt.
 */

import { detailsOf } from "@webbrain/protocol";
import { isBrowserUnavailable } from "../errors.js";
import type { RequestCredentials } from "../guards/ask-fetch-policy.js";
import { wrapUntrusted } from "../guards/untrusted.js";
import { documentRefusal, type LocalFileAccess, NO_LOCAL_FILES, urlRefusal } from "../guards/url-policy.js";
import type {
  BrowserPort,
  HistoryQuery,
  PageActionName,
  PageResult,
  PortCallOptions,
  UploadRequest,
} from "./browser-port.js";
import { fetchRequestFor } from "./http-fetch.js";
import { withoutRequestEchoes } from "./request-echoes.js";
import { type PortActionToolName, type PortToolName, toolSpec } from "./tool-catalog.js";
import { agentResult, modelFields, plainResult, type ToolContent, untrustedResult } from "./tool-result.js";

/** fetch_url and research_url give up after this long. */
export const NETWORK_TIMEOUT_MS = 30_000;
/** Tree size asked of the page when the model sets none: the 8,000-char result cap less room for the wrapper. */
export const TREE_MAX_CHARS = 7_000;

export interface DispatchContext {
  tabId: string;
  url: string;
  /** The run's Stop, passed to every port call. */
  signal?: AbortSignal;
  /** fetch_url / research_url without the user's cookies ("omit": Ask, a site the user did not give). */
  credentials?: RequestCredentials;
}

export interface DispatchOutcome extends ToolContent {
  /** The call moved the run to another tab (new_tab). */
  newTabId?: string;
  /** The call navigated; the new URL if known. */
  navigatedTo?: string;
  /** The raw page result, for guards that look at it. */
  pageResult?: PageResult;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
}

/**
 * Why the agent may not open `url` on this port (url-policy.ts: http(s) and about:blank, file:
 * only where the user allowed local files); undefined: it may.
 */
export function checkNavigableUrl(url: string, access: LocalFileAccess = NO_LOCAL_FILES): string | undefined {
  return urlRefusal(url, access, "navigate to")?.message;
}

export async function dispatchTool(
  port: BrowserPort,
  name: string,
  args: Record<string, unknown>,
  ctx: DispatchContext,
): Promise<DispatchOutcome> {
  try {
    return await run(port, name, args, ctx);
  } catch (error) {
    // No browser, no retry: the loop ends the run on this (agent.ts).
    if (isBrowserUnavailable(error)) throw error;
    // A thrown message can quote the page (a page's getter that throws, a script error), so
    // it is data, wrapped like every other page text.
    return agentResult(
      name,
      false,
      `The browser failed; re-read the page and try again. Its error:\n${wrapUntrusted(`browser ${ctx.url}`, (error as Error).message)}`,
    );
  }
}

async function navigation(
  port: BrowserPort,
  name: string,
  result: PageResult,
  tabId: string,
  call: PortCallOptions,
): Promise<DispatchOutcome> {
  const tab = await port.getTab(tabId, call).catch(() => undefined);
  const fields = { ...result, url: tab?.url ?? result.url, title: tab?.title ?? result.title };
  return {
    ...untrustedResult(name, `tab ${tab?.url ?? ""}`, fields),
    navigatedTo: tab?.url,
    pageResult: result,
  };
}

type ToolHandler = (
  port: BrowserPort,
  args: Record<string, unknown>,
  ctx: DispatchContext,
  call: PortCallOptions,
) => Promise<DispatchOutcome>;

/** search_history looks this many days back when the model names no range. */
export const HISTORY_DEFAULT_DAYS = 7;
/** At most this many pages per search_history answer (the result cap would cut more anyway). */
export const HISTORY_MAX_RESULTS = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

/** search_history's arguments as a HistoryQuery: bounded count, a range ending now. */
export function historyQueryFor(args: Record<string, unknown>, now: number): HistoryQuery {
  const days = typeof args.days === "number" && args.days > 0 ? args.days : HISTORY_DEFAULT_DAYS;
  const wanted = typeof args.max_results === "number" && args.max_results > 0 ? args.max_results : 20;
  return {
    text: str(args.text),
    startTime: now - days * DAY_MS,
    endTime: now,
    maxResults: Math.min(Math.floor(wanted), HISTORY_MAX_RESULTS),
  };
}

const HISTORY_HANDLERS: Record<"search_history" | "get_history_visits", ToolHandler> = {
  search_history: async (port, args, ctx, call) => {
    if (!port.history) return agentResult("search_history", false, "This browser cannot read history.");
    const result = await port.history.searchHistory(ctx.tabId, historyQueryFor(args, Date.now()), call);
    return untrustedResult("search_history", "browsing history", result);
  },
  get_history_visits: async (port, args, ctx, call) => {
    if (!port.history) return agentResult("get_history_visits", false, "This browser cannot read history.");
    const url = str(args.url);
    if (!url) return agentResult("get_history_visits", false, "Pass the page's url (from search_history).");
    const result = await port.history.historyVisits(ctx.tabId, url, call);
    return untrustedResult("get_history_visits", "browsing history", result);
  },
};

/** How each `port` tool runs (and `port_action` tools that do more than the port call). */
const PORT_TOOL_HANDLERS: Record<PortToolName, ToolHandler> &
  Partial<Record<PortActionToolName, ToolHandler>> = {
  screenshot: async (port, args, ctx, call) => {
    const full = args.full === true;
    const shot = await port.screenshot(ctx.tabId, { ...call, full });
    // A port without full-page screenshots answers the viewport: say so rather than let the
    // model believe it saw the whole page.
    const viewportOnly =
      full && !port.capabilities.has("full_page_screenshot")
        ? " (this browser captures the viewport only; scroll to see more)"
        : "";
    return {
      content: [
        { type: "text", text: `[screenshot ok] ${ctx.url}${viewportOnly}` },
        { type: "image", data: shot.dataBase64, mimeType: shot.mimeType },
      ],
      isError: false,
      details: { success: true, url: ctx.url, mimeType: shot.mimeType, full: full && !viewportOnly },
    };
  },
  navigate: async (port, args, ctx, call) => {
    const url = str(args.url);
    const bad = checkNavigableUrl(url, port.localFiles);
    if (bad) return agentResult("navigate", false, bad);
    return navigation(port, "navigate", await port.navigate(ctx.tabId, url, call), ctx.tabId, call);
  },
  go_back: async (port, _args, ctx, call) =>
    navigation(port, "go_back", await port.goBack(ctx.tabId, call), ctx.tabId, call),
  go_forward: async (port, _args, ctx, call) =>
    navigation(port, "go_forward", await port.goForward(ctx.tabId, call), ctx.tabId, call),
  new_tab: async (port, args, _ctx, call) => {
    const url = str(args.url);
    const bad = checkNavigableUrl(url, port.localFiles);
    if (bad) return agentResult("new_tab", false, bad);
    const tab = await port.newTab(url, { ...call, active: false });
    return {
      ...untrustedResult("new_tab", `tab ${tab.url}`, {
        success: true,
        tabId: tab.id,
        url: tab.url,
        title: tab.title,
      }),
      newTabId: tab.id,
      navigatedTo: tab.url,
    };
  },
  pause_for_user: async (port, args, ctx, call) => {
    if (!port.pauseForUser)
      return agentResult("pause_for_user", false, "Nobody is at hand to take over this browser.");
    const answer = await port.pauseForUser(str(args.message), call);
    if (!answer.resumed) {
      return agentResult(
        "pause_for_user",
        false,
        "Nobody answered: the person's input closed. Go on without them, or call done saying what blocks you.",
      );
    }
    // The person may have logged in or moved on: report where the tab is now, so the
    // executor drops refs of a page that is gone.
    const tab = await port.getTab(ctx.tabId, call).catch(() => undefined);
    const said = answer.said ? ` They said: ${JSON.stringify(answer.said)}.` : "";
    return {
      ...agentResult(
        "pause_for_user",
        true,
        `The person handed the browser back.${said} The page may have changed: read it again.`,
        { resumed: true, said: answer.said, url: tab?.url },
      ),
      ...(tab ? { navigatedTo: tab.url } : {}),
    };
  },
  promote_iframe: async (port, args, ctx, call) => {
    const frame = await port.pageAction(ctx.tabId, "promote_iframe", args, call);
    const url = detailsOf("promote_iframe", frame)?.url;
    if (!url) return { ...untrustedResult("promote_iframe", `page ${ctx.url}`, frame), pageResult: frame };
    const bad = checkNavigableUrl(url, port.localFiles);
    if (bad) return agentResult("promote_iframe", false, bad);
    return navigation(port, "promote_iframe", await port.navigate(ctx.tabId, url, call), ctx.tabId, call);
  },
  fetch_url: async (port, args, ctx, call) => {
    const request = fetchRequestFor(args, NETWORK_TIMEOUT_MS);
    const response = await port.fetchUrl(
      ctx.credentials ? { ...request, credentials: ctx.credentials } : request,
      call,
    );
    // Redirects are followed: what came back is checked like what was asked for.
    const landed = urlRefusal(response.url, port.localFiles ?? NO_LOCAL_FILES, "fetch");
    if (landed) return agentResult("fetch_url", false, landed.message, { refused: landed.code });
    const ok = response.status >= 200 && response.status < 400;
    const result: PageResult = {
      success: ok,
      status: response.status,
      url: response.url,
      contentType: response.headers["content-type"] ?? "",
      truncated: response.truncated,
      body: response.body,
      ...(ok ? {} : { error: `HTTP ${response.status} ${response.statusText}`.trim() }),
    };
    return untrustedResult("fetch_url", `fetch ${response.url}`, result);
  },
  research_url: async (port, args, ctx, call) => {
    const url = str(args.url);
    const bad = checkNavigableUrl(url, port.localFiles);
    if (bad) return agentResult("research_url", false, bad);
    const result = await port.researchUrl(url, {
      ...call,
      maxChars: 7_000,
      timeoutMs: NETWORK_TIMEOUT_MS,
      ...(ctx.credentials ? { credentials: ctx.credentials } : {}),
    });
    // The page may have redirected somewhere the user did not allow: its text is not passed on.
    const landed =
      typeof result.url === "string"
        ? documentRefusal(result.url, port.localFiles ?? NO_LOCAL_FILES)
        : undefined;
    if (landed) return agentResult("research_url", false, landed.message, { refused: landed.code });
    return untrustedResult("research_url", `page ${url}`, result);
  },
  list_downloads: async (port, args) => {
    const downloads = await port.listDownloads({ limit: typeof args.limit === "number" ? args.limit : 20 });
    return untrustedResult("list_downloads", "downloads", {
      success: true,
      downloads: downloads.map((d) => ({ ...d })),
    });
  },
  read_downloaded_file: async (port, args) => {
    const file = await port.readDownload(str(args.id), { maxChars: 7_000 });
    return untrustedResult("read_downloaded_file", `download ${file.filename}`, { success: true, ...file });
  },
  download_resource_from_page: async (port, args, ctx, call) => {
    const name = "download_resource_from_page";
    if (!port.download) return agentResult(name, false, "This browser cannot download files.");
    const resolved = await port.pageAction(ctx.tabId, "resolve_resource_url", args, call);
    const url = str(resolved.url);
    if (!resolved.success || !url) return untrustedResult(name, `page ${ctx.url}`, resolved);
    const refusal = urlRefusal(url, port.localFiles ?? NO_LOCAL_FILES, "download");
    if (refusal) return agentResult(name, false, refusal.message, { refused: refusal.code });
    const filename = args.filename === undefined ? undefined : str(args.filename);
    const download = await port.download(url, filename, call);
    return untrustedResult(name, "downloads", { success: true, download: { ...download } });
  },
  download_files: async (port, args, _ctx, call) => {
    const download = port.download?.bind(port);
    if (!download) return agentResult("download_files", false, "This browser cannot download files.");
    const urls = Array.isArray(args.urls) ? args.urls.map(str) : [];
    const started = [];
    for (const url of urls) started.push({ ...(await download(url, undefined, call)) });
    return untrustedResult("download_files", "downloads", { success: true, downloads: started });
  },
  ...HISTORY_HANDLERS,
  upload_file: async (port, args, ctx, call) => {
    if (!port.uploadFile) return agentResult("upload_file", false, "This browser cannot upload files.");
    const result = await port.uploadFile(ctx.tabId, uploadRequestOf(args), call);
    return { ...untrustedResult("upload_file", `page ${ctx.url}`, result), pageResult: result };
  },
};

/** Whether any value in the result (at any depth) is a string. */
function carriesText(value: unknown): boolean {
  if (typeof value === "string") return true;
  if (Array.isArray(value)) return value.some(carriesText);
  if (value && typeof value === "object") return Object.values(value).some(carriesText);
  return false;
}

function portHandler(name: string): ToolHandler | undefined {
  return Object.hasOwn(PORT_TOOL_HANDLERS, name)
    ? PORT_TOOL_HANDLERS[name as keyof typeof PORT_TOOL_HANDLERS]
    : undefined;
}

async function run(
  port: BrowserPort,
  name: string,
  args: Record<string, unknown>,
  ctx: DispatchContext,
): Promise<DispatchOutcome> {
  // Every port call carries the run's Stop, so Stop ends the browser work, not only the wait.
  const call: PortCallOptions = ctx.signal ? { signal: ctx.signal } : {};
  const spec = toolSpec(name);
  if (!spec) return agentResult(name, false, `Unknown tool "${name}".`);
  const handler = portHandler(name);
  if (handler) return handler(port, args, ctx, call);
  if (spec.runs.in !== "page" && spec.runs.in !== "port_action")
    return agentResult(name, false, `${name} is answered by the agent, not the browser.`);
  // Ask the page for a tree that fits the result cap, so it truncates with its own marker.
  const params =
    spec.answersTree && args.max_chars === undefined ? { ...args, max_chars: TREE_MAX_CHARS } : args;
  const result = await port.pageAction(ctx.tabId, name as PageActionName, params, call);
  // The model reads the result without what repeats its call (request-echoes.ts).
  const shown = withoutRequestEchoes(name, args, result);
  // Plain only while it carries no text at all: a hover's target, a scrolled element's name, a
  // dialog the action opened are the page's words. A page tool's result with no string left
  // (`{"verified":true}` after a type) holds nothing the page wrote, so it needs no wrapper.
  if (!carriesText(modelFields(shown))) return { ...plainResult(name, result, shown), pageResult: result };
  return { ...untrustedResult(name, `page ${ctx.url}`, result, [], shown), pageResult: result };
}

/** upload_file's arguments as the port's request: only the fields a request has. */
export function uploadRequestOf(args: Record<string, unknown>): UploadRequest {
  const request: Record<string, unknown> = {};
  for (const key of ["ref_id", "selector", "downloadId", "path", "drop"])
    if (args[key] !== undefined) request[key] = args[key];
  return request as UploadRequest;
}
