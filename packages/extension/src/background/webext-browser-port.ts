/**
 * The add-on's BrowserPort: the agent's browser, over `browser.tabs`, `tabs.sendMessage` to the
 * content-script glue, `tabs.captureTab`, background `fetch` and `browser.downloads`.
 *
 * Invariants (BrowserPort's, plus):
 * - Tab ids are `String(tab.id)`; a non-numeric id is a typed error, never NaN passed on.
 * - Page actions are routed by page-actions.ts (frames by frameId, execute_js in the page's
 *   realm, wait_for_stable with the tab's requests in flight, ref floors across documents); a page
 *   without the content script gets it injected once (content-channel.ts).
 * - upload_file attaches a file the person offered in the sidebar (`path`: its name; the chat's
 *   files come through `offering`) or one the run downloaded (bytes fetched again here), put into
 *   the input by the content script through DataTransfer. Add-ons cannot read local paths, so
 *   any other `path` is refused (`not_offered`), before the permission gate asks (checkUpload).
 * - Every call honours Stop (PortCallOptions.signal): it rejects at once with AbortError.
 * - Screenshots come from `captureTab` of the run tab, which works while that tab is inactive.
 * - `fetchUrl` sends the user's cookies (the background page's fetch with credentials), which is
 *   why spec 000 guards mutating methods behind /allow-api before this is called; a request the
 *   agent marks `credentials: "omit"` (Ask, a site the user did not give) sends none, and
 *   research_url then reads the page through such a fetch instead of a tab (a tab has cookies).
 * - file: URLs only when the user turned on the setting (`localFiles`, kept current by main.ts).
 * - `researchUrl` always closes the tab it opened, also on failure.
 * - History is read only after the person allowed the optional `history` permission.
 */

import type {
  BrowserPort,
  DownloadContent,
  DownloadInfo,
  FetchRequest,
  FetchResponse,
  HttpFetch,
  LocalFileAccess,
  NewTabOptions,
  PageActionName,
  PageResult,
  PortCallOptions,
  ResearchOptions,
  ResearchResult,
  Screenshot,
  ScreenshotOptions,
  TabId,
  TabInfo,
  UploadPreview,
  UploadRequest,
} from "@webbrain/agent";
import { base64Of, fetchText } from "@webbrain/agent";
import type { BrowserCapabilities, BrowserCapability, PortErrorCode } from "@webbrain/protocol";
import {
  ATTACH_FILE_MESSAGE,
  type AttachFileMessage,
  type ElementTarget,
  isLinkFollowed,
  LINK_FOLLOWED_FIELD,
} from "../content/content-messages.js";
import { MAX_UPLOAD_BYTES } from "../shared/offered-files.js";
import { isStopped, stoppedError, throwIfStopped } from "./abort.js";
import { WebExtActionSideEffects } from "./action-side-effects.js";
import { sendToFrame, TOP_FRAME_ID } from "./content-channel.js";
import { DEFAULT_MAX_DOWNLOAD_MB, megabytesToBytes, watchDownloadSize } from "./download-limit.js";
import { fullPageRect } from "./full-page-capture.js";
import { addonLocalFiles } from "./local-files-setting.js";
import { NetworkActivity } from "./network-activity.js";
import { WebExtPageActions } from "./page-actions.js";
import { WebExtHistory } from "./webext-history.js";

export const NAVIGATION_TIMEOUT_MS = 30_000;
export const FETCH_TIMEOUT_MS = 30_000;
export const DEFAULT_FETCH_MAX_CHARS = 100_000;
export const DEFAULT_RESEARCH_MAX_CHARS = 20_000;
export { MAX_UPLOAD_BYTES } from "../shared/offered-files.js";

export class BrowserPortError extends Error {
  override name = "BrowserPortError";
}

function numericTabId(tabId: TabId): number {
  const id = Number(tabId);
  if (!Number.isInteger(id))
    throw new BrowserPortError(`"${tabId}" is not a Firefox tab id (expected a number)`);
  return id;
}

function toTabInfo(tab: browser.tabs.Tab): TabInfo {
  return { id: String(tab.id), url: tab.url ?? "", title: tab.title ?? "", active: tab.active };
}

/**
 * Resolves when the tab finishes a load that starts after this call (or that is already under
 * way), or answers `success: false` after timeoutMs. `trigger` starts the navigation once the
 * listener is in place, so a fast load cannot be missed. Stop (`signal`) rejects with AbortError.
 * A tab just created shows about:blank first; with `awaitUrl` that interim document does not
 * count as the load (it would answer about:blank for a page still on its way).
 */
async function loadSettled(
  tabId: number,
  timeoutMs: number,
  trigger: () => Promise<unknown>,
  alreadyLoading = false,
  signal?: AbortSignal,
  awaitUrl?: string,
): Promise<PageResult> {
  const interim = (url: string | undefined) =>
    awaitUrl !== undefined && awaitUrl !== "about:blank" && (url === undefined || url === "about:blank");
  throwIfStopped(signal);
  let settle: ((result: PageResult) => void) | undefined;
  let listener: ((id: number, change: browser.tabs.ChangeInfo, tab: browser.tabs.Tab) => void) | undefined;
  let removedListener: ((id: number) => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const done = new Promise<PageResult>((resolve, reject) => {
    settle = resolve;
    onAbort = () => reject(stoppedError());
    signal?.addEventListener("abort", onAbort, { once: true });
    let sawLoading = alreadyLoading;
    listener = (id, change, tab) => {
      if (id !== tabId) return;
      if (change.status === "loading") sawLoading = true;
      if (change.status === "complete" && sawLoading && !interim(tab.url)) {
        resolve({ success: true, url: tab.url ?? "", title: tab.title ?? "" });
      }
    };
    removedListener = (id) => {
      if (id === tabId) resolve({ success: false, error: "The tab was closed while it loaded." });
    };
    browser.tabs.onUpdated.addListener(listener);
    browser.tabs.onRemoved.addListener(removedListener);
    timer = setTimeout(() => {
      resolve({
        success: false,
        error: `The page did not finish loading within ${timeoutMs / 1000} s. It may still be usable: read it again.`,
      });
    }, timeoutMs);
  });
  try {
    await trigger();
    if (alreadyLoading) {
      // The load began before the listener existed; it may have finished in between.
      const tab = await browser.tabs.get(tabId);
      if (tab.status === "complete" && !interim(tab.url))
        settle?.({ success: true, url: tab.url ?? "", title: tab.title ?? "" });
    }
    return await done;
  } catch (error) {
    if (isStopped(error)) throw error;
    return {
      success: false,
      error: `Navigation failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    if (listener) browser.tabs.onUpdated.removeListener(listener);
    if (removedListener) browser.tabs.onRemoved.removeListener(removedListener);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/** The add-on's fetch seam: the background page's fetch, sending the user's cookies unless told not to. */
const fetchWithCookies: HttpFetch = (url, init) =>
  fetch(url, { ...init, credentials: init.credentials ?? "include" });

export class WebExtBrowserPort implements BrowserPort {
  /**
   * What the add-on runs (README "What the add-on does not offer" says why the rest is missing:
   * trusted input needs WebDriver BiDi, which the companion lends). Full-page screenshots are
   * `captureTab` with the document's rect (full-page-capture.ts).
   * `file_upload` is for files the run downloaded (downloadId), never a local path.
   */
  readonly capabilities: BrowserCapabilities = new Set<BrowserCapability>([
    "page_layer",
    "navigation",
    "tabs",
    "screenshot",
    "full_page_screenshot",
    // The content script's page layer reads closed roots through openOrClosedShadowRoot.
    "closed_shadow_roots",
    "frame_input",
    "frame_promotion",
    "execute_js",
    "http_fetch",
    "research",
    "downloads",
    "download",
    "resource_url",
    "file_upload",
    "history",
    "clipboard_read",
  ]);
  /** The user's history, behind the optional `history` permission (webext-history.ts). */
  readonly history = new WebExtHistory();
  /** What the user allowed for local files (Settings); main.ts keeps it current. */
  localFiles: LocalFileAccess = addonLocalFiles(false);
  readonly #network: NetworkActivity;
  readonly #pageActions: WebExtPageActions;
  readonly #sideEffects = new WebExtActionSideEffects();
  readonly #maxDownloadBytes: () => Promise<number>;

  /** `maxDownloadBytes`: the user's limit for one download, read per download (settings). */
  constructor(options: { maxDownloadBytes?: () => Promise<number> } = {}) {
    this.#maxDownloadBytes =
      options.maxDownloadBytes ?? (() => Promise.resolve(megabytesToBytes(DEFAULT_MAX_DOWNLOAD_MB)));
    this.#network = new NetworkActivity(browser.webRequest);
    this.#network.start();
    this.#pageActions = new WebExtPageActions(this.#network);
    browser.tabs.onRemoved.addListener((tabId) => this.#pageActions.forgetTab(tabId));
  }

  async listTabs(): Promise<TabInfo[]> {
    const tabs = await browser.tabs.query({});
    return tabs.filter((tab) => tab.id !== undefined && !tab.hidden).map(toTabInfo);
  }

  async activeTab(): Promise<TabInfo | undefined> {
    const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
    return tab?.id === undefined ? undefined : toTabInfo(tab);
  }

  async getTab(tabId: TabId): Promise<TabInfo> {
    try {
      return toTabInfo(await browser.tabs.get(numericTabId(tabId)));
    } catch (error) {
      if (error instanceof BrowserPortError) throw error;
      throw new BrowserPortError(`Tab ${tabId} is gone (it was closed). Open the page again and retry.`);
    }
  }

  navigate(tabId: TabId, url: string, options?: PortCallOptions): Promise<PageResult> {
    const id = numericTabId(tabId);
    return loadSettled(
      id,
      NAVIGATION_TIMEOUT_MS,
      () => browser.tabs.update(id, { url }),
      false,
      options?.signal,
    );
  }

  goBack(tabId: TabId, options?: PortCallOptions): Promise<PageResult> {
    const id = numericTabId(tabId);
    return loadSettled(id, NAVIGATION_TIMEOUT_MS, () => browser.tabs.goBack(id), false, options?.signal);
  }

  goForward(tabId: TabId, options?: PortCallOptions): Promise<PageResult> {
    const id = numericTabId(tabId);
    return loadSettled(id, NAVIGATION_TIMEOUT_MS, () => browser.tabs.goForward(id), false, options?.signal);
  }

  async newTab(url: string, options?: NewTabOptions): Promise<TabInfo> {
    let created: browser.tabs.Tab | undefined;
    const windowId =
      options?.besideTab === undefined
        ? undefined
        : (await browser.tabs.get(numericTabId(options.besideTab))).windowId;
    const createdId = new Promise<number>((resolve, reject) => {
      browser.tabs
        .create({ url, active: options?.active ?? false, ...(windowId === undefined ? {} : { windowId }) })
        .then((tab) => {
          created = tab;
          if (tab.id === undefined) reject(new BrowserPortError("Firefox opened a tab without an id"));
          else resolve(tab.id);
        }, reject);
    });
    const id = await createdId;
    // The load started with create(); wait for it to complete unless it already has.
    await loadSettled(id, NAVIGATION_TIMEOUT_MS, async () => undefined, true, options?.signal, url);
    return toTabInfo(await browser.tabs.get(id).catch(() => created as browser.tabs.Tab));
  }

  waitForNavigation(tabId: TabId, timeoutMs: number, options?: PortCallOptions): Promise<PageResult> {
    return loadSettled(numericTabId(tabId), timeoutMs, async () => undefined, false, options?.signal);
  }

  /** Downloads and tabs the action started are added to its result (action-side-effects.ts). */
  async pageAction(
    tabId: TabId,
    action: PageActionName,
    params: Record<string, unknown>,
    options?: PortCallOptions,
  ): Promise<PageResult> {
    const id = numericTabId(tabId);
    const effects = await this.#sideEffects.begin(id);
    try {
      const result = await this.#pageActions.run(id, action, params, options?.signal);
      const followed = result[LINK_FOLLOWED_FIELD];
      delete result[LINK_FOLLOWED_FIELD];
      const { dialogs, ...started } = await effects.collect(isLinkFollowed(followed) ? followed : undefined);
      if (started.navigated) {
        // What the page layer saw change (focus on the link) was in the document that is gone.
        delete result.effect;
      }
      const answered = [...(Array.isArray(result.dialogs) ? result.dialogs : []), ...(dialogs ?? [])];
      return Object.assign(result, started, answered.length > 0 ? { dialogs: answered } : {});
    } finally {
      effects.end();
    }
  }

  async screenshot(tabId: TabId, options: ScreenshotOptions = {}): Promise<Screenshot> {
    const jpeg = options.jpegQuality !== undefined;
    const tab = numericTabId(tabId);
    const rect = options.full ? await fullPageRect(tab) : undefined;
    const dataUrl = await browser.tabs.captureTab(tab, {
      ...(jpeg ? { format: "jpeg", quality: Math.round(options.jpegQuality! * 100) } : { format: "png" }),
      ...(rect ? { rect } : {}),
    });
    const comma = dataUrl.indexOf(",");
    return { mimeType: jpeg ? "image/jpeg" : "image/png", dataBase64: dataUrl.slice(comma + 1) };
  }

  /** fetch_url's one implementation (the agent's), through fetch with the user's cookies. */
  fetchUrl(request: FetchRequest, options?: PortCallOptions): Promise<FetchResponse> {
    return fetchText(request, fetchWithCookies, options?.signal);
  }

  async researchUrl(url: string, options?: ResearchOptions): Promise<ResearchResult> {
    const maxChars = options?.maxChars ?? DEFAULT_RESEARCH_MAX_CHARS;
    if (options?.credentials === "omit") return this.#researchWithoutCookies(url, maxChars, options);
    let tabId: number | undefined;
    try {
      const tab = await browser.tabs.create({ url, active: false });
      tabId = tab.id;
      if (tabId === undefined) return { success: false, error: "Firefox opened no tab for research_url." };
      const id = tabId;
      const timeoutMs = options?.timeoutMs ?? NAVIGATION_TIMEOUT_MS;
      const loaded = await loadSettled(id, timeoutMs, async () => undefined, true, options?.signal, url);
      if (!loaded.success) return { success: false, url, error: loaded.error ?? "The page did not load." };
      const read = await this.pageAction(String(id), "read_page", { maxChars });
      const info = await browser.tabs.get(id);
      if (!read.success)
        return { success: false, url: info.url ?? url, error: read.error ?? "read_page failed" };
      const text = typeof read.text === "string" ? read.text : JSON.stringify(read);
      return { success: true, url: info.url ?? url, title: info.title ?? "", text: text.slice(0, maxChars) };
    } finally {
      if (tabId !== undefined) await browser.tabs.remove(tabId).catch(() => undefined);
    }
  }

  /**
   * research_url without the user's cookies: a tab would send them, so the page is fetched
   * cookieless and its text read from the parsed HTML (its scripts do not run).
   */
  async #researchWithoutCookies(
    url: string,
    maxChars: number,
    options: ResearchOptions,
  ): Promise<ResearchResult> {
    const response = await fetchText(
      {
        url,
        credentials: "omit",
        maxChars: DEFAULT_FETCH_MAX_CHARS,
        timeoutMs: options.timeoutMs ?? NAVIGATION_TIMEOUT_MS,
      },
      fetchWithCookies,
      options.signal,
    );
    if (response.status < 200 || response.status >= 400)
      return {
        success: false,
        url: response.url,
        error: `The page did not load: ${response.status === 0 ? response.statusText : `HTTP ${response.status} ${response.statusText}`}.`,
      };
    const doc = new DOMParser().parseFromString(response.body, "text/html");
    for (const element of doc.querySelectorAll("script, style, noscript, template")) element.remove();
    const text = (doc.body?.textContent ?? "").replace(/\s+/g, " ").trim();
    return {
      success: true,
      url: response.url,
      title: doc.title,
      text: text.slice(0, maxChars),
      ...(text.length > maxChars || response.truncated ? { truncated: true } : {}),
      readWithoutCookies: true,
    };
  }

  async listDownloads(options?: { limit?: number }): Promise<DownloadInfo[]> {
    const items = await browser.downloads.search({ limit: options?.limit ?? 20, orderBy: ["-startTime"] });
    return items.map((item) => ({
      id: String(item.id),
      url: item.url,
      filename: item.filename,
      mime: item.mime,
      bytes: item.fileSize >= 0 ? item.fileSize : undefined,
      state: item.state,
      startTime: item.startTime,
    }));
  }

  async readDownload(id: string, options?: { maxChars?: number }): Promise<DownloadContent> {
    const [item] = await browser.downloads.search({ id: Number(id) });
    if (!item) throw new BrowserPortError(`No download with id ${id}; list_downloads shows the ids.`);
    // Add-ons cannot read files on disk; fetch the same URL again (with the user's cookies).
    const response = await this.fetchUrl({
      url: item.url,
      maxChars: options?.maxChars ?? DEFAULT_FETCH_MAX_CHARS,
    });
    return {
      id,
      filename: item.filename,
      mime: item.mime,
      content: response.body,
      encoding: "utf8",
      truncated: response.truncated,
    };
  }

  /** Firefox downloads the file; the watch holds the size limit (download-limit.ts). */
  async download(url: string, filename?: string, options: PortCallOptions = {}): Promise<DownloadInfo> {
    const limit = await this.#maxDownloadBytes();
    const id = await browser.downloads.download(filename ? { url, filename } : { url });
    const item = await watchDownloadSize(browser.downloads, id, url, limit, options.signal);
    return {
      id: String(id),
      url,
      filename: item?.filename ?? filename ?? "",
      ...(item && item.fileSize >= 0 && item.state === "complete" ? { bytes: item.fileSize } : {}),
      state: item?.state ?? "in_progress",
    };
  }

  /**
   * This port's upload_file (and its check) with the files one chat offered in the sidebar;
   * `attach` puts the file into the page instead of the content script (the companion's
   * trusted `input.setFiles`).
   */
  offering(shelf: OfferedFileShelf, attach?: FileAttacher): Pick<BrowserPort, "uploadFile" | "checkUpload"> {
    return {
      uploadFile: (tabId, request) => this.uploadFile(tabId, request, {}, shelf, attach),
      checkUpload: (tabId, request) => this.checkUpload(tabId, request, {}, shelf),
    };
  }

  /** Which file upload_file would send (before the permission gate asks); reads no bytes. */
  async checkUpload(
    _tabId: TabId,
    request: UploadRequest,
    _options: PortCallOptions = {},
    shelf: OfferedFileShelf = NO_OFFERED_FILES,
  ): Promise<UploadPreview> {
    const source = await locateUpload(request, shelf);
    if (!source.ok) return source;
    return source.kind === "offered"
      ? { ok: true, file: source.file.name, bytes: source.file.bytes }
      : {
          ok: true,
          file: source.name,
          ...(source.item.fileSize >= 0 ? { bytes: source.item.fileSize } : {}),
        };
  }

  async uploadFile(
    tabId: TabId,
    request: UploadRequest,
    _options: PortCallOptions = {},
    shelf: OfferedFileShelf = NO_OFFERED_FILES,
    attach?: FileAttacher,
  ): Promise<PageResult> {
    const id = numericTabId(tabId);
    const source = await locateUpload(request, shelf);
    if (!source.ok) return { success: false, code: source.code, error: source.error };
    let file: { name: string; mime: string; data: Uint8Array };
    if (source.kind === "offered") file = source.file;
    else {
      const read = await readDownloadAgain(request.downloadId ?? "", source.item);
      if ("error" in read) return { success: false, error: read.error };
      file = {
        name: source.name,
        mime: source.item.mime || read.type || "application/octet-stream",
        data: read.data,
      };
    }
    const target: ElementTarget = {};
    if (request.ref_id !== undefined) target.ref_id = request.ref_id;
    if (request.selector !== undefined) target.selector = request.selector;
    if (attach) return attach(id, target, file, request.drop === true);
    const message: AttachFileMessage = {
      type: ATTACH_FILE_MESSAGE,
      target,
      name: file.name,
      mime: file.mime,
      dataBase64: base64Of(file.data),
      ...(request.drop === true ? { drop: true } : {}),
    };
    return sendToFrame(id, TOP_FRAME_ID, message, "upload_file");
  }
}

/** Puts a file into the page's file input (or drops it on `target`) some other way than ours. */
export type FileAttacher = (
  tabId: number,
  target: ElementTarget,
  file: { name: string; mime: string; data: Uint8Array },
  drop: boolean,
) => Promise<PageResult>;

/** The files a chat offered for the page (background/offered-files.ts), as upload_file reads them. */
export interface OfferedFileShelf {
  find(name: string): { name: string; mime: string; bytes: number; data: Uint8Array } | undefined;
  names(): string[];
}

const NO_OFFERED_FILES: OfferedFileShelf = { find: () => undefined, names: () => [] };

type UploadSource =
  | { ok: true; kind: "offered"; file: NonNullable<ReturnType<OfferedFileShelf["find"]>> }
  | { ok: true; kind: "download"; item: browser.downloads.DownloadItem; name: string }
  | { ok: false; code: PortErrorCode; error: string };

/**
 * The file upload_file names: one the person offered in the sidebar (`path`, its name) or one
 * the run downloaded (`downloadId`). Anything else is refused with what to do instead; add-ons
 * cannot read the disk, so a path is never read.
 */
async function locateUpload(request: UploadRequest, shelf: OfferedFileShelf): Promise<UploadSource> {
  const offered = shelf.names();
  const offeredNow =
    offered.length > 0
      ? `offered now: ${offered.map((name) => JSON.stringify(name)).join(", ")}`
      : "none is offered now";
  if (request.path !== undefined && request.path !== "") {
    const file = shelf.find(request.path);
    if (file) return { ok: true, kind: "offered", file };
    return {
      ok: false,
      code: "not_offered",
      error: `${JSON.stringify(request.path)} is not a file the user offered for this page (${offeredNow}), and the add-on cannot read files from your disk by path (Firefox gives add-ons no API for that). upload_file sends only a file the user offered in the sidebar (the 📤 "For the page" button; pass its name as path) or one this run downloaded (downloadId from list_downloads). Ask the user to offer the file there, then call upload_file with its name.`,
    };
  }
  if (request.downloadId === undefined || request.downloadId === "")
    return {
      ok: false,
      code: "no_file",
      error: `upload_file needs a file: pass path (the name of a file the user offered in the sidebar; ${offeredNow}) or downloadId (from list_downloads).`,
    };
  const [item] = await browser.downloads.search({ id: Number(request.downloadId) });
  if (!item)
    return {
      ok: false,
      code: "no_download",
      error: `No download with id ${request.downloadId}; list_downloads shows the ids.`,
    };
  return { ok: true, kind: "download", item, name: item.filename.split(/[/\\]/).at(-1) || "download" };
}

/** A download's bytes, fetched again from its URL (add-ons cannot read files on disk), capped. */
async function readDownloadAgain(
  downloadId: string,
  item: browser.downloads.DownloadItem,
): Promise<{ data: Uint8Array; type: string } | { error: string }> {
  let bytes: Uint8Array | undefined;
  let type: string;
  try {
    const response = await fetch(item.url, {
      credentials: "include",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    bytes = await readUpTo(response, MAX_UPLOAD_BYTES);
    type = response.headers.get("content-type")?.split(";")[0]?.trim() ?? "";
  } catch (error) {
    return {
      error: `Could not read download ${downloadId} again from ${item.url}: ${(error as Error).message}. Download it again and retry.`,
    };
  }
  if (!bytes)
    return {
      error: `That file is over ${MAX_UPLOAD_BYTES} bytes; the add-on uploads files up to ${MAX_UPLOAD_BYTES} bytes.`,
    };
  return { data: bytes, type };
}

/**
 * The body, read chunk by chunk up to `maxBytes`; undefined (the body cancelled, the rest never
 * received) when it declares or turns out to be bigger, so a huge file never fills memory.
 */
async function readUpTo(response: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
