/**
 * BidiBrowserPort: the agent's BrowserPort over WebDriver BiDi and the page script.
 *
 * Invariants (besides BrowserPort's own):
 * - Page actions run in the "webbrain" sandbox realm (page-script-channel.ts); element actions
 *   take the page layer's resolve path and are pressed with trusted input, then verified
 *   (element-actions.ts).
 * - Every result leaves here as plain JSON: element handles the page returned for our own use
 *   are stripped, and dialogs the action opened are reported in `dialogs`.
 * - A failure the page or the model caused resolves `{success: false, error}`; a closed tab or
 *   a dead browser throws (TabGoneError, BidiConnectionClosedError).
 * - What the port knows of its tabs and frames comes from one BrowsingContextTree
 *   (`contexts`): the port's one event subscription, scoped to its user context. Every feature
 *   below reads it; `dispose` ends the tree, and with it every listener and wait.
 */

import { access, readFile, stat } from "node:fs/promises";
import {
  type BrowserPort,
  type DownloadContent,
  type DownloadInfo,
  type FetchRequest,
  type FetchResponse,
  type LocalFileAccess,
  type NewTabOptions,
  type PageActionName,
  type PageResult,
  type PersonAnswer,
  type PortCallOptions,
  type ResearchOptions,
  type ResearchResult,
  type Screenshot,
  type ScreenshotOptions,
  type TabId,
  type TabInfo,
  type UploadRequest,
  urlRefusal,
} from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";
import { dropFileOnElement } from "@webbrain/page/file-drop";
import {
  type BrowserCapabilities,
  type BrowserCapability,
  browserCapabilities,
  detailsOf,
} from "@webbrain/protocol";
import { ActionSideEffects } from "../browser/action-side-effects.js";
import { BrowsingContextTree } from "../browser/browsing-context-tree.js";
import { ContextDocuments } from "../browser/context-documents.js";
import { tabClosedMessage } from "../browser/context-gone.js";
import {
  DEFAULT_DIALOG_POLICY,
  DialogHandler,
  type DialogPolicy,
  describeDialogs,
} from "../browser/dialog-handler.js";
import { DownloadFolder } from "../browser/download-folder.js";
import { LeavingTabs, NavigationEvents } from "../browser/navigation-watch.js";
import { NetworkActivity } from "../browser/network-activity.js";
import { captureScreenshot } from "../browser/screenshots.js";
import { TabContexts, TabGoneError } from "../browser/tab-contexts.js";
import type { PersonAtHand } from "../run/wait-for-person.js";
import { ElementActions } from "../tools/element-actions.js";
import { type FetchImpl, fetchText } from "../tools/http-fetch.js";
import { checkUploadPath, localFileAccess, type RunnerLocalFiles } from "../tools/local-files.js";
import { bidiCode, isFatal } from "./page-result.js";
import { PAGE_SANDBOX, PageScriptChannel } from "./page-script-channel.js";
import { loadRunnerRealmScript } from "./page-script-source.js";
import { fromRemoteValue, isElementHandle } from "./remote-value.js";
import { sleepUnlessStopped, throwIfStopped, unlessStopped } from "./stop-signal.js";

export interface BidiBrowserPortOptions {
  client: BidiClient;
  /** The page layer's IIFE (`buildPageScript()` of @webbrain/page). */
  pageScript: string;
  /** Folder for downloads made during the run. */
  downloadsDir: string;
  /** Size limit of one download (`--max-download-mb`); default DEFAULT_MAX_DOWNLOAD_BYTES. */
  maxDownloadBytes?: number;
  dialogPolicy?: DialogPolicy;
  /** Work in this BiDi user context (own cookies and storage, own tabs); default: the default one. */
  userContext?: string;
  /** We launched this Firefox: its initial blank tabs may be closed. */
  ownsBrowser?: boolean;
  navigationTimeoutMs?: number;
  fetchImpl?: FetchImpl;
  /** A person who can take over now (pause_for_user); without one the tool is not offered. */
  person?: PersonAtHand;
  /** What the user allowed of their files (--allow-file-urls, --upload-dir, --attach); default none. */
  localFiles?: RunnerLocalFiles;
  /**
   * Open a tab to work in (default true). The companion acts in the person's own tabs and opens
   * none (companion/companion-host.ts).
   */
  workTab?: boolean;
}

export const DEFAULT_NAVIGATION_TIMEOUT_MS = 30_000;
/** research_url reads at most this much page text unless told otherwise. */
const RESEARCH_MAX_CHARS = 20_000;
/** A dropped file travels as base64 in one BiDi message (the add-on's upload cap, too). */
const MAX_DROP_BYTES = 20 * 1024 * 1024;
/** How often back/forward poll for the document to finish loading. */
const READY_POLL_MS = 50;

/** Over BiDi the runner runs every declared tool (tool-conformance.test.ts calls each one). */
const BIDI_CAPABILITIES = [
  "page_layer",
  "navigation",
  "tabs",
  "screenshot",
  "full_page_screenshot",
  "trusted_input",
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
] as const satisfies readonly BrowserCapability[];

export class BidiBrowserPort implements BrowserPort {
  /** Everything BiDi can run, and pause_for_user when a person is at hand. */
  readonly capabilities: BrowserCapabilities;
  /** file: URLs only with --allow-file-urls (the executor and navigate check every URL). */
  readonly localFiles: LocalFileAccess;
  readonly client: BidiClient;
  /** The browsing contexts this port follows, kept from BiDi events (browsing-context-tree.ts). */
  readonly contexts: BrowsingContextTree;
  readonly channel: PageScriptChannel;
  readonly tabs: TabContexts;
  /** URL and title of every context, from events: getTab costs no round trip. */
  readonly documents: ContextDocuments;
  readonly dialogs: DialogHandler;
  readonly downloads: DownloadFolder;
  readonly network: NetworkActivity;
  readonly sideEffects: ActionSideEffects;
  readonly #elements: ElementActions;
  readonly #leaving: LeavingTabs;
  readonly #navigationTimeoutMs: number;
  readonly #fetch: FetchImpl;
  readonly #ownsBrowser: boolean;
  readonly #person: PersonAtHand | undefined;
  readonly #files: RunnerLocalFiles | undefined;

  private constructor(opts: BidiBrowserPortOptions, realmScript: string) {
    this.#person = opts.person;
    this.#files = opts.localFiles;
    this.localFiles = localFileAccess(opts.localFiles);
    this.capabilities = browserCapabilities(
      ...BIDI_CAPABILITIES,
      ...(opts.person ? (["person_at_hand"] as const) : []),
    );
    this.client = opts.client;
    // Built first and listening from here on: every feature below reads it.
    this.contexts = new BrowsingContextTree(opts.client, {
      userContext: opts.userContext,
      sandbox: PAGE_SANDBOX,
    });
    this.channel = new PageScriptChannel(opts.client, opts.pageScript, realmScript);
    this.tabs = new TabContexts(opts.client, this.contexts, opts.userContext);
    this.documents = new ContextDocuments(this.contexts);
    this.dialogs = new DialogHandler(opts.client, this.contexts, opts.dialogPolicy ?? DEFAULT_DIALOG_POLICY);
    this.#fetch = opts.fetchImpl ?? fetch;
    this.downloads = new DownloadFolder(opts.downloadsDir, this.#fetch, opts.maxDownloadBytes);
    this.#navigationTimeoutMs = opts.navigationTimeoutMs ?? DEFAULT_NAVIGATION_TIMEOUT_MS;
    this.#ownsBrowser = opts.ownsBrowser ?? false;
    this.network = new NetworkActivity(this.contexts.bidiEvents);
    this.sideEffects = new ActionSideEffects(opts.client, this.contexts);
    this.#elements = new ElementActions(
      opts.client,
      this.channel,
      this.tabs,
      this.dialogs,
      this.network,
      new NavigationEvents(this.contexts),
    );
    this.#leaving = new LeavingTabs(this.contexts);
  }

  /** Subscribes to events, installs the page script and opens the tab the agent works in. */
  static async open(opts: BidiBrowserPortOptions): Promise<BidiBrowserPort> {
    const port = new BidiBrowserPort(opts, await loadRunnerRealmScript());
    try {
      await port.#start(opts);
    } catch (error) {
      // Nobody gets this port to dispose: its listeners and subscription must not outlive it.
      port.dispose();
      throw error;
    }
    return port;
  }

  async #start(opts: BidiBrowserPortOptions): Promise<void> {
    this.network.start();
    await this.contexts.start();
    this.tabs.start();
    await this.channel.install();
    // The person's own Firefox (the companion) keeps its tabs and its download folder.
    if (opts.workTab === false) return;
    await this.sideEffects.routeDownloads(this.downloads.dir, opts.userContext).catch(() => {
      // A remote browser (a Grid node) may refuse a local folder; downloads then go where it says.
    });
    const initial = this.tabs.ids();
    // Work in a tab we create: in headless Firefox the first tab never gets focus, and
    // widgets that open on focus (comboboxes, date pickers) would not work there.
    const tab = await this.tabs.create(false);
    if (this.#ownsBrowser) {
      for (const id of initial) await this.tabs.close(id).catch(() => {});
    }
    this.tabs.markActive(tab);
  }

  /** Closes the tabs this port opened (for a browser we do not own, before disconnecting). */
  async closeOwnTabs(): Promise<void> {
    for (const id of this.tabs.createdIds()) await this.tabs.close(id).catch(() => {});
  }

  /**
   * Stops following the browser: the model's listeners, contexts (their waits end with
   * TabGoneError) and subscription go, and network waits wake. The connection itself is closed
   * by its owner.
   */
  dispose(): void {
    this.network.stop();
    void this.contexts.dispose();
  }

  async listTabs(): Promise<TabInfo[]> {
    const tree = await this.client.send("browsingContext.getTree", { maxDepth: 0 });
    const active = this.tabs.activeId;
    return Promise.all(
      // Only this port's tabs: other sessions' user contexts share the browser, not the list.
      tree.contexts
        .filter((info) => this.tabs.has(info.context))
        .map(async (info) => ({
          id: info.context,
          url: info.url,
          title: await this.documents.title(info.context),
          active: info.context === active,
        })),
    );
  }

  async activeTab(): Promise<TabInfo | undefined> {
    const id = this.tabs.activeId;
    return id ? this.getTab(id) : undefined;
  }

  /** From memory (context-documents.ts): no BiDi command unless the title was never read. */
  async getTab(tabId: TabId): Promise<TabInfo> {
    if (!this.tabs.has(tabId)) throw new TabGoneError(tabClosedMessage(tabId));
    const url = this.documents.url(tabId) ?? (await this.tabs.url(tabId));
    return { id: tabId, url, title: await this.documents.title(tabId), active: tabId === this.tabs.activeId };
  }

  async navigate(tabId: TabId, url: string, options: PortCallOptions = {}): Promise<PageResult> {
    const target = normalizeUrl(url);
    if (!target)
      return {
        success: false,
        error: `"${url}" is not a URL; give a full address such as https://example.com/.`,
      };
    // Every navigation this port makes (the command line's URL, research_url, new_tab) obeys
    // the URL policy, not only the agent's: javascript: is refused at once, file: unless allowed.
    const refusal = urlRefusal(target, this.localFiles, "navigate to");
    if (refusal) return { success: false, error: refusal.message, refused: refusal.code };
    try {
      await this.client.send(
        "browsingContext.navigate",
        { context: tabId, url: target, wait: "complete" },
        { timeoutMs: this.#navigationTimeoutMs, ...(options.signal ? { signal: options.signal } : {}) },
      );
    } catch (error) {
      return this.#navigationFailure(tabId, target, error);
    }
    return this.#pageSummary(tabId);
  }

  async goBack(tabId: TabId, options: PortCallOptions = {}): Promise<PageResult> {
    return this.#traverse(tabId, -1, options.signal);
  }

  async goForward(tabId: TabId, options: PortCallOptions = {}): Promise<PageResult> {
    return this.#traverse(tabId, 1, options.signal);
  }

  async newTab(url: string, options: NewTabOptions = {}): Promise<TabInfo> {
    const id = await this.tabs.create(!options.active);
    if (url && url !== "about:blank") await this.navigate(id, url, options);
    return this.getTab(id);
  }

  async closeTab(tabId: TabId): Promise<void> {
    await this.tabs.close(tabId);
  }

  /** The tab's next load; TabGoneError when the tab closes first, the Stop error on Stop. */
  async waitForNavigation(
    tabId: TabId,
    timeoutMs: number,
    options: PortCallOptions = {},
  ): Promise<PageResult> {
    const tab = this.contexts.get(tabId);
    if (!tab?.isTab) throw new TabGoneError(tabClosedMessage(tabId));
    const loaded = await tab.waitFor("load", {
      timeoutMs,
      signal: options.signal,
      what: "waitForNavigation",
    });
    if (!loaded)
      return { success: false, error: `No navigation finished in tab ${tabId} within ${timeoutMs} ms.` };
    return { success: true, url: loaded[0] };
  }

  async pageAction(
    tabId: TabId,
    action: PageActionName,
    params: Record<string, unknown>,
    options: PortCallOptions = {},
  ): Promise<PageResult> {
    if (!this.tabs.has(tabId)) throw new TabGoneError(tabClosedMessage(tabId));
    // A page being left behind an accepted "leave this page?" prompt: act on the page it goes to.
    const left = await this.#leaving.settled(tabId, this.#navigationTimeoutMs, options.signal);
    // Downloads and tabs the action starts are reported in its result (action-side-effects.ts).
    const effects = this.sideEffects.begin(tabId, (context) => context === tabId);
    const result = await this.#elements.run(tabId, action, params, options.signal);
    if (left) {
      const url = this.documents.url(tabId) ?? "";
      result.navigated = true;
      result.note = `The page navigated to ${url} after the previous action (a "leave this page?" prompt was accepted); this result is of the new page.`;
    }
    Object.assign(result, await effects.collect());
    await this.dialogs.settled();
    // The frame list costs a round trip: fetch it only when something needs it.
    const frames =
      this.dialogs.hasRecords || action === "get_frames" ? await this.tabs.frames(tabId).catch(() => []) : [];
    if (action === "get_frames")
      result.contexts = frames.slice(1).map((f) => ({ url: f.url, depth: f.depth }));
    if (this.dialogs.hasRecords) {
      const dialogs = this.dialogs.take(new Set([tabId, ...frames.map((f) => f.context)]));
      if (dialogs.length > 0) result.dialogs = describeDialogs(dialogs);
    }
    return result;
  }

  async screenshot(tabId: TabId, options: ScreenshotOptions = {}): Promise<Screenshot> {
    return captureScreenshot(this.client, tabId, options.full === true, options.signal, options.jpegQuality);
  }

  fetchUrl(request: FetchRequest, options: PortCallOptions = {}): Promise<FetchResponse> {
    return unlessStopped(fetchText(request, this.#fetch), options.signal, "fetch_url");
  }

  async researchUrl(url: string, options: ResearchOptions = {}): Promise<ResearchResult> {
    // Without the user's cookies: a user context of its own, removed with the tab.
    const cookieless =
      options.credentials === "omit"
        ? (await this.client.send("browser.createUserContext", {})).userContext
        : undefined;
    // Its tab, and any popup it opens, are this port's to follow (dialogs answered) while it lives.
    const release = cookieless ? this.contexts.includeUserContext(cookieless) : () => {};
    let id: string | undefined;
    try {
      id = await this.tabs.create(true, cookieless);
      const navigation = await this.navigate(id, url, options);
      if (!navigation.success) return navigation;
      const page = await this.pageAction(id, "read_page", {}, options);
      const maxChars = options.maxChars ?? RESEARCH_MAX_CHARS;
      const text = detailsOf("read_page", page)?.text ?? "";
      return {
        success: page.success,
        ...(page.error ? { error: page.error } : {}),
        url: String(navigation.url ?? url),
        title: String(navigation.title ?? ""),
        text: text.slice(0, maxChars),
        ...(text.length > maxChars ? { truncated: true } : {}),
      };
    } finally {
      if (id !== undefined) await this.tabs.close(id).catch(() => {});
      if (cookieless)
        await this.client.send("browser.removeUserContext", { userContext: cookieless }).catch(() => {});
      release();
    }
  }

  async listDownloads(options: { limit?: number } = {}): Promise<DownloadInfo[]> {
    return this.downloads.list(options.limit);
  }

  readDownload(id: string, options: { maxChars?: number } = {}): Promise<DownloadContent> {
    return this.downloads.read(id, options.maxChars);
  }

  download(url: string, filename?: string, options: PortCallOptions = {}): Promise<DownloadInfo> {
    return this.downloads.download(url, filename, options.signal);
  }

  async pauseForUser(message: string, options: PortCallOptions = {}): Promise<PersonAnswer> {
    if (!this.#person) return { resumed: false, said: "" };
    return this.#person.pause(message, options.signal);
  }

  async uploadFile(tabId: TabId, request: UploadRequest, options: PortCallOptions = {}): Promise<PageResult> {
    let path: string;
    try {
      if (request.downloadId) path = this.downloads.pathOf(request.downloadId);
      else if (request.path) {
        const checked = await checkUploadPath(request.path, this.#files, this.downloads.dir);
        if (!checked.ok) return { success: false, error: checked.error };
        path = checked.path;
      } else
        return {
          success: false,
          error: "upload_file needs a file: pass downloadId (from list_downloads) or path.",
        };
      await access(path);
    } catch (error) {
      return { success: false, error: `Cannot upload: ${(error as Error).message}` };
    }
    const target = await this.#elements.locate(tabId, request, options.signal);
    if (!target.success || !isElementHandle(target.element)) {
      return {
        success: false,
        error: target.error ?? 'That target is not an element; point at an <input type="file">.',
      };
    }
    if (request.drop === true) return this.#dropFile(target.context, target.element.sharedId, path, options);
    try {
      await this.client.send(
        "input.setFiles",
        { context: target.context, element: { sharedId: target.element.sharedId }, files: [path] },
        options.signal ? { signal: options.signal } : {},
      );
    } catch (error) {
      if (isFatal(error)) throw error;
      const message = (error as Error).message;
      return {
        success: false,
        error: `Could not put the file into that element: ${message}. Point at an <input type="file">.`,
      };
    }
    return { success: true, uploaded: path.split(/[/\\]/).at(-1) ?? path };
  }

  /**
   * A file dropped on a drop zone. WebDriver BiDi's input.performActions moves the pointer but
   * carries no files, and Firefox 153 has no BiDi command for a file drag, so the drag events are
   * dispatched in the sandbox (isTrusted false) with the file's bytes, as the add-on does.
   */
  async #dropFile(
    context: string,
    sharedId: string,
    path: string,
    options: PortCallOptions,
  ): Promise<PageResult> {
    const size = (await stat(path)).size;
    if (size > MAX_DROP_BYTES)
      return {
        success: false,
        error: `That file is ${size} bytes; a dropped file goes through the page and may be up to ${MAX_DROP_BYTES} bytes. Use a file input (without drop) for bigger files.`,
      };
    const name = path.split(/[/\\]/).at(-1) ?? "file";
    const result = await this.client.send(
      "script.callFunction",
      {
        functionDeclaration: String(dropFileOnElement),
        awaitPromise: false,
        target: { context, sandbox: PAGE_SANDBOX },
        arguments: [
          { sharedId },
          { type: "string", value: (await readFile(path)).toString("base64") },
          { type: "string", value: name },
          { type: "string", value: "application/octet-stream" },
        ],
        serializationOptions: { maxObjectDepth: 1 },
        resultOwnership: "none",
      },
      options.signal ? { signal: options.signal } : {},
    );
    if (result.type === "exception")
      return { success: false, error: `The drop failed in the page: ${result.exceptionDetails.text}` };
    const answer = fromRemoteValue(result.result);
    return answer !== null && typeof answer === "object" && !Array.isArray(answer)
      ? { ...(answer as PageResult), trusted: false }
      : { success: false, error: "The drop gave no answer." };
  }

  /** The tab's URL from memory; TabGoneError once it is closed. */
  #urlOf(tabId: TabId): string {
    const url = this.documents.url(tabId);
    if (url === undefined || !this.tabs.has(tabId)) throw new TabGoneError(tabClosedMessage(tabId));
    return url;
  }

  async #pageSummary(tabId: TabId): Promise<PageResult> {
    const tab = await this.getTab(tabId);
    return { success: true, url: tab.url, title: tab.title };
  }

  async #navigationFailure(tabId: TabId, url: string, error: unknown): Promise<PageResult> {
    if (!this.tabs.has(tabId)) throw error;
    const message = (error as Error).message;
    if (bidiCode(error) === "aborted" || bidiCode(error) === "connection closed") throw error;
    if (bidiCode(error) === "timeout") {
      return {
        success: false,
        error: `${url} did not finish loading within ${this.#navigationTimeoutMs / 1000} s; the page may still be usable, read the tree.`,
      };
    }
    return { success: false, error: `Could not open ${url}: ${message}` };
  }

  async #traverse(tabId: TabId, delta: number, signal?: AbortSignal): Promise<PageResult> {
    const before = this.#urlOf(tabId);
    try {
      await this.client.send(
        "browsingContext.traverseHistory",
        { context: tabId, delta },
        signal ? { signal } : {},
      );
    } catch (error) {
      if (bidiCode(error) === "no such history entry") {
        return { success: false, error: `There is no page to go ${delta < 0 ? "back" : "forward"} to.` };
      }
      throw error;
    }
    const deadline = Date.now() + this.#navigationTimeoutMs;
    while (Date.now() < deadline) {
      throwIfStopped(signal, delta < 0 ? "go_back" : "go_forward");
      const state = await this.client
        .send("script.evaluate", {
          expression: "document.readyState",
          target: { context: tabId, sandbox: PAGE_SANDBOX },
          awaitPromise: false,
          resultOwnership: "none",
        })
        .catch(() => undefined);
      const url = this.#urlOf(tabId);
      if (
        state?.type === "success" &&
        state.result.type === "string" &&
        state.result.value === "complete" &&
        url !== before
      ) {
        break;
      }
      await sleepUnlessStopped(READY_POLL_MS, signal, delta < 0 ? "go_back" : "go_forward");
    }
    return this.#pageSummary(tabId);
  }
}

/** Adds https:// to a bare host ("example.com/a"); undefined when it is not a URL at all. */
export function normalizeUrl(raw: string): string | undefined {
  const text = raw.trim();
  if (!text) return undefined;
  try {
    return new URL(text).toString();
  } catch {
    if (/^[\w-]+(\.[\w-]+)+(:\d+)?(\/.*)?$/.test(text)) return new URL(`https://${text}`).toString();
    return undefined;
  }
}
