/**
 * Runs one already-permitted tool call against the BrowserPort and renders its result.
 * All gating (mode, plan, guards, permissions) happened before this in the executor; this
 * module only maps a tool to port calls and decides which results carry untrusted text.
 *
 * Invariant: a port failure (thrown error) becomes a failed tool result the model can read,
 * never an exception out of the loop: the run goes on and the model can adapt.
 */
import type { BrowserPort, PageActionName, PageResult, PortCallOptions } from "./browser-port.js";
import { PAGE_ACTIONS } from "./browser-port.js";
import { agentResult, type ToolContent, untrustedResult } from "./tool-result.js";

/** fetch_url and research_url give up after this long. */
export const NETWORK_TIMEOUT_MS = 30_000;
/** Tree size asked of the page when the model sets none: the 8,000-char result cap less room for the wrapper. */
export const TREE_MAX_CHARS = 7_000;

export interface DispatchContext {
  tabId: string;
  url: string;
  /** The run's Stop, passed to every port call. */
  signal?: AbortSignal;
}

export interface DispatchOutcome extends ToolContent {
  /** The call moved the run to another tab (new_tab). */
  newTabId?: string;
  /** The call navigated; the new URL if known. */
  navigatedTo?: string;
  /** The raw page result, for guards that look at it. */
  pageResult?: PageResult;
}

const PAGE_ACTION_SET = new Set<string>(PAGE_ACTIONS);

/** Results of these tools are agent-made or carry no page text. */
const TRUSTED_PAGE_ACTIONS = new Set(["scroll", "wait_for_stable", "press_keys", "drag_drop", "hover"]);

function str(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
}

/** Only web and file URLs; `javascript:` and `data:` navigations are refused. */
export function checkNavigableUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not an absolute URL. Include the scheme, e.g. https://example.com/.`;
  }
  if (!["http:", "https:", "file:", "about:"].includes(parsed.protocol)) {
    return `${parsed.protocol} URLs are refused; navigate only to http(s) pages.`;
  }
  return undefined;
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
    return agentResult(
      name,
      false,
      `The browser failed: ${(error as Error).message}. Re-read the page and try again.`,
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

async function run(
  port: BrowserPort,
  name: string,
  args: Record<string, unknown>,
  ctx: DispatchContext,
): Promise<DispatchOutcome> {
  const { tabId } = ctx;
  // Every port call carries the run's Stop, so Stop ends the browser work, not only the wait.
  const call: PortCallOptions = ctx.signal ? { signal: ctx.signal } : {};
  switch (name) {
    case "screenshot": {
      const shot = await port.screenshot(tabId, { ...call, full: args.full === true });
      return {
        content: [
          { type: "text", text: `[screenshot ok] ${ctx.url}` },
          { type: "image", data: shot.dataBase64, mimeType: shot.mimeType },
        ],
        isError: false,
      };
    }
    case "navigate": {
      const url = str(args.url);
      const bad = checkNavigableUrl(url);
      if (bad) return agentResult(name, false, bad);
      return navigation(port, name, await port.navigate(tabId, url, call), tabId, call);
    }
    case "go_back":
      return navigation(port, name, await port.goBack(tabId, call), tabId, call);
    case "go_forward":
      return navigation(port, name, await port.goForward(tabId, call), tabId, call);
    case "new_tab": {
      const url = str(args.url);
      const bad = checkNavigableUrl(url);
      if (bad) return agentResult(name, false, bad);
      const tab = await port.newTab(url, { ...call, active: false });
      return {
        ...untrustedResult(name, `tab ${tab.url}`, {
          success: true,
          tabId: tab.id,
          url: tab.url,
          title: tab.title,
        }),
        newTabId: tab.id,
        navigatedTo: tab.url,
      };
    }
    case "promote_iframe": {
      const frame = await port.pageAction(tabId, "promote_iframe", args, call);
      const url = str(frame.url);
      if (!frame.success || !url)
        return { ...untrustedResult(name, `page ${ctx.url}`, frame), pageResult: frame };
      const bad = checkNavigableUrl(url);
      if (bad) return agentResult(name, false, bad);
      return navigation(port, name, await port.navigate(tabId, url, call), tabId, call);
    }
    case "fetch_url": {
      const response = await port.fetchUrl(
        {
          url: str(args.url),
          method: str(args.method || "GET").toUpperCase(),
          headers: (args.headers as Record<string, string> | undefined) ?? {},
          ...(args.body !== undefined ? { body: str(args.body) } : {}),
          timeoutMs: NETWORK_TIMEOUT_MS,
          maxChars: 8_000,
        },
        call,
      );
      const ok = response.status >= 200 && response.status < 400;
      const result: PageResult = {
        success: ok,
        status: response.status,
        url: response.url,
        contentType: response.headers["content-type"] ?? "",
        truncated: response.truncated,
        body: response.body,
        ...(ok ? {} : { error: `HTTP ${response.status} ${response.statusText}` }),
      };
      return untrustedResult(name, `fetch ${response.url}`, result);
    }
    case "research_url": {
      const url = str(args.url);
      const bad = checkNavigableUrl(url);
      if (bad) return agentResult(name, false, bad);
      const result = await port.researchUrl(url, { ...call, maxChars: 7_000, timeoutMs: NETWORK_TIMEOUT_MS });
      return untrustedResult(name, `page ${url}`, result);
    }
    case "list_downloads": {
      const downloads = await port.listDownloads({ limit: typeof args.limit === "number" ? args.limit : 20 });
      return untrustedResult(name, "downloads", {
        success: true,
        downloads: downloads.map((d) => ({ ...d })),
      });
    }
    case "read_downloaded_file": {
      const file = await port.readDownload(str(args.id), { maxChars: 7_000 });
      return untrustedResult(name, `download ${file.filename}`, { success: true, ...file });
    }
    case "download_resource_from_page": {
      if (!port.download) return agentResult(name, false, "This browser cannot download files.");
      const resolved = await port.pageAction(tabId, "resolve_resource_url", args, call);
      const url = str(resolved.url);
      if (!resolved.success || !url) return untrustedResult(name, `page ${ctx.url}`, resolved);
      const download = await port.download(
        url,
        args.filename === undefined ? undefined : str(args.filename),
        call,
      );
      return untrustedResult(name, "downloads", { success: true, download: { ...download } });
    }
    case "download_files": {
      const download = port.download?.bind(port);
      if (!download) return agentResult(name, false, "This browser cannot download files.");
      const urls = Array.isArray(args.urls) ? args.urls.map(str) : [];
      const started = [];
      for (const url of urls) started.push({ ...(await download(url, undefined, call)) });
      return untrustedResult(name, "downloads", { success: true, downloads: started });
    }
    case "upload_file": {
      if (!port.uploadFile) return agentResult(name, false, "This browser cannot upload files.");
      const request: Record<string, unknown> = {};
      for (const key of ["ref_id", "selector", "downloadId", "path"])
        if (args[key] !== undefined) request[key] = args[key];
      const result = await port.uploadFile(tabId, request, call);
      return { ...untrustedResult(name, `page ${ctx.url}`, result), pageResult: result };
    }
    default: {
      if (!PAGE_ACTION_SET.has(name)) return agentResult(name, false, `Unknown tool "${name}".`);
      // Ask the page for a tree that fits the result cap, so it truncates with its own marker.
      const params =
        name === "get_accessibility_tree" && args.max_chars === undefined
          ? { ...args, max_chars: TREE_MAX_CHARS }
          : args;
      const result = await port.pageAction(tabId, name as PageActionName, params, call);
      if (TRUSTED_PAGE_ACTIONS.has(name) && typeof result.error !== "string") {
        const { success, ...rest } = result;
        return { ...agentResult(name, success !== false, "", rest), pageResult: result };
      }
      return { ...untrustedResult(name, `page ${ctx.url}`, result), pageResult: result };
    }
  }
}
