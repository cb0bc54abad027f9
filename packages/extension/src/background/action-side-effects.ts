/**
 * What a page action started besides its own effect, as the WebExtension APIs report it:
 * downloads (`downloads.onCreated`) and new tabs or popups (`tabs.onCreated` with the acting tab
 * as `openerTabId`). A click that downloads a file or opens a tab says so in its result, in the
 * runner's shape (runner `action-side-effects.ts`):
 *   `downloads: [{filename, bytes, path, status, url}]`, `new_tabs: [{tab_id, url}]`.
 * Popups Firefox's popup blocker refused (`popups_blocked`) and page dialogs (`dialogs`) are
 * reported by the content script, which sees them in the page (content/page-effects.ts).
 *
 * Invariants:
 * - Only the acting tab's effects count: a tab opened by another tab is not this action's; a
 *   download whose referrer is another site's page is not either (downloads carry no tab id).
 * - Listeners are added once and shared by the actions in progress.
 * - A click on a download link answers before Firefox has made the download (it does once the
 *   response's headers say "attachment"), so a document request the action started in the tab
 *   (`webRequest`, main_frame) is waited for until it ends: by then it has become a page or a
 *   download. That request itself starts after the click returned: when the content script says
 *   the action followed a link, its start (or the download or tab it made) is awaited first.
 *   No fixed settle time.
 * - A synthetic click has no user activation, so Firefox's popup blocker refuses a link that
 *   opens a new tab (`target=_blank`); the content script says so and the tab is opened here
 *   with `tabs.create` (`openerTabId`: the acting tab), as the runner's trusted click opens it.
 *   A refused `window.open` is reported as `popups_blocked`, as the runner reports it.
 * - Waiting is bounded: such a request and a download that has begun get DOWNLOAD_WAIT_MS to end
 *   (then it is reported "in_progress"); a new tab gets NEW_TAB_WAIT_MS to leave about:blank. An
 *   action that started nothing waits for nothing.
 */

import { FOLLOW_START_TIMEOUT_MS } from "@webbrain/agent";
import type { DownloadReport, NewTabReport } from "@webbrain/protocol";
import { isPageLeftMessage, type LinkFollowed } from "../content/content-messages.js";

/** How long a begun download may take to finish before the result is returned without it. */
const DOWNLOAD_WAIT_MS = 10_000;
/** How long a document an action navigated to may take to load before the result is returned. */
const NAVIGATION_LOAD_WAIT_MS = 10_000;
/** How long a new tab may take to get its first URL. */
const NEW_TAB_WAIT_MS = 3_000;
const POLL_MS = 50;

export interface ActionEffects {
  downloads?: DownloadReport[];
  new_tabs?: NewTabReport[];
  /** The tab's document was left for another one; `url` is where it is now (loaded). */
  navigated?: true;
  url?: string;
  /** "Leave this page?" prompts the page raised as it was left, answered (content script). */
  dialogs?: string[];
}

export interface SideEffectRecorder {
  /** Waits (bounded) for what has begun (and, after a followed link, for it to begin) and reports it. */
  collect(followed: LinkFollowed | undefined): Promise<ActionEffects>;
  /** Stops recording without waiting (also after a failed or stopped action). */
  end(): void;
}

interface Recording {
  tabId: number;
  /** The tab's URL when the action began (a navigation is a different one afterwards). */
  url: string | undefined;
  /** "Leave this page?" prompts the tab's content script answered during the action. */
  leaves: string[];
  /** The acting tab's origin when the action began (a download's referrer is matched to it). */
  origin: string | undefined;
  downloads: number[];
  tabs: number[];
  /** Document requests the action started in the tab, not yet ended (webRequest ids). */
  documents: Set<string>;
  /** The action started a document request in the tab (a pushState URL change starts none). */
  requestedDocument: boolean;
}

function originOf(url: string | undefined): string | undefined {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
}

function baseName(path: string): string {
  return path.split(/[/\\]/).at(-1) ?? path;
}

export class WebExtActionSideEffects {
  readonly #active = new Set<Recording>();
  #listening = false;

  async begin(tabId: number): Promise<SideEffectRecorder> {
    this.#listen();
    const tab = await browser.tabs.get(tabId).catch(() => undefined);
    const recording: Recording = {
      tabId,
      url: tab?.url,
      leaves: [],
      origin: originOf(tab?.url),
      downloads: [],
      tabs: [],
      documents: new Set(),
      requestedDocument: false,
    };
    this.#active.add(recording);
    return {
      collect: async (followed) => {
        const { downloads, tabs, documents } = recording;
        if (followed?.blockedNewTab) {
          // Opened as a trusted click would have (the runner's click opens it): one tab, the
          // link the model chose, behind the acting tab.
          const opened = await browser.tabs
            .create({ url: followed.blockedNewTab, active: false, openerTabId: tabId })
            .catch(() => undefined);
          if (opened?.id !== undefined && !tabs.includes(opened.id)) tabs.push(opened.id);
        } else if (followed)
          await waitUntil(
            async () => documents.size > 0 || downloads.length > 0 || tabs.length > 0,
            FOLLOW_START_TIMEOUT_MS,
          );
        if (documents.size > 0) await waitUntil(async () => documents.size === 0, DOWNLOAD_WAIT_MS);
        const out: ActionEffects = {};
        if (downloads.length > 0) out.downloads = await Promise.all(downloads.map(reportDownload));
        if (tabs.length > 0) out.new_tabs = await Promise.all(tabs.map(reportTab));
        Object.assign(out, await reportNavigation(recording));
        if (recording.leaves.length > 0) out.dialogs = [...recording.leaves];
        return out;
      },
      end: () => {
        this.#active.delete(recording);
      },
    };
  }

  #listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    browser.downloads.onCreated.addListener((item) => {
      const from = originOf(item.referrer);
      for (const recording of this.#active) {
        if (from === undefined || recording.origin === undefined || from === recording.origin)
          recording.downloads.push(item.id);
      }
    });
    const documents = { urls: ["<all_urls>"], types: ["main_frame" as const] };
    browser.webRequest.onBeforeRequest.addListener((details) => {
      for (const recording of this.#active)
        if (details.tabId === recording.tabId) {
          recording.documents.add(details.requestId);
          recording.requestedDocument = true;
        }
    }, documents);
    const ended = (details: browser.webRequest.RequestDetails) => {
      for (const recording of this.#active) recording.documents.delete(details.requestId);
    };
    browser.webRequest.onCompleted.addListener(ended, documents);
    browser.webRequest.onErrorOccurred.addListener(ended, documents);
    // A page left after the action returned says so from its content script (page-effects.ts).
    browser.runtime.onMessage.addListener((message, sender) => {
      if (!isPageLeftMessage(message) || sender.tab?.id === undefined) return undefined;
      for (const recording of this.#active)
        if (recording.tabId === sender.tab.id) recording.leaves.push(message.dialog);
      return undefined;
    });
    browser.tabs.onCreated.addListener((tab) => {
      if (tab.id === undefined) return;
      for (const recording of this.#active) {
        if (tab.openerTabId === recording.tabId && !recording.tabs.includes(tab.id))
          recording.tabs.push(tab.id);
      }
    });
  }
}

/** A different document than when the action began, without its fragment (a hash is not a new page). */
function leftDocument(before: string | undefined, now: string | undefined): boolean {
  const page = (url: string | undefined) => url?.split("#")[0];
  return before !== undefined && now !== undefined && now !== "about:blank" && page(now) !== page(before);
}

/**
 * Whether the action took the tab to another document: then the next call would race that
 * document, so it is awaited until loaded (bounded), and its URL reported, as the runner does.
 */
async function reportNavigation(recording: Recording): Promise<Pick<ActionEffects, "navigated" | "url">> {
  if (!recording.requestedDocument) return {};
  let tab = await browser.tabs.get(recording.tabId).catch(() => undefined);
  if (!leftDocument(recording.url, tab?.url)) return {};
  await waitUntil(async () => {
    tab = await browser.tabs.get(recording.tabId).catch(() => undefined);
    return tab === undefined || tab.status === "complete";
  }, NAVIGATION_LOAD_WAIT_MS);
  return { navigated: true, ...(tab?.url ? { url: tab.url } : {}) };
}

async function reportDownload(id: number): Promise<DownloadReport> {
  let item: browser.downloads.DownloadItem | undefined;
  await waitUntil(async () => {
    [item] = await browser.downloads.search({ id });
    return item === undefined || item.state !== "in_progress";
  }, DOWNLOAD_WAIT_MS);
  if (!item) return { filename: "", url: "", status: "canceled" };
  if (item.state === "in_progress")
    return { filename: baseName(item.filename), url: item.url, status: "in_progress" };
  const complete = item.state === "complete";
  const bytes = item.fileSize >= 0 ? item.fileSize : item.bytesReceived;
  return {
    filename: baseName(item.filename),
    url: item.url,
    status: complete ? "complete" : "canceled",
    ...(complete && bytes >= 0 ? { bytes } : {}),
    ...(complete && item.filename ? { path: item.filename } : {}),
  };
}

async function reportTab(id: number): Promise<NewTabReport> {
  let url = "about:blank";
  await waitUntil(async () => {
    const tab = await browser.tabs.get(id).catch(() => undefined);
    url = tab?.url ?? url;
    return url !== "about:blank" || tab === undefined;
  }, NEW_TAB_WAIT_MS);
  return { tab_id: String(id), url };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
}
