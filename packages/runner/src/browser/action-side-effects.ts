/**
 * What a page action started besides its own effect: downloads and new tabs or popups, as
 * BiDi reports them (Firefox 153 emits `browsingContext.downloadWillBegin`, `downloadEnd` with
 * the file's path, and `contextCreated` with `originalOpener`), and popups the popup blocker
 * stopped (no BiDi event exists: the page layer counts `window.open` answering null, see
 * @webbrain/page `popup-watch.ts`). A click that downloads a file, opens a tab or was refused
 * popups says so in its result:
 *   `downloads: [{filename, bytes, path, status, url}]`, `new_tabs: [{tab_id, url}]`,
 *   `popups_blocked: N`.
 *
 * Invariants:
 * - Downloads land in the run's downloads folder (`browser.setDownloadBehavior`), never in the
 *   user's; a download is never a navigation, so the session goes on as before.
 * - Only events of the acting tab count: another session's (user context's) download or popup
 *   never shows up in this session's results.
 * - An action that started nothing costs one sandbox evaluate (the blocked-popup count, read
 *   while downloads are awaited) and no settle wait.
 * - Waiting is bounded: a download that has begun gets DOWNLOAD_WAIT_MS to end (then it is
 *   reported "in_progress"); a new tab gets NEW_TAB_WAIT_MS to leave about:blank.
 * - Events come from the port's browsing-context model (browsing-context-tree.ts): a download is
 *   the model's Download object, whose end the model fills in.
 */
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { BidiClient } from "@webbrain/bidi";
import { TAKE_BLOCKED_POPUPS_EXPRESSION } from "@webbrain/page/runner-realm";
import type { DownloadReport, NewTabReport } from "@webbrain/protocol";
import { PAGE_SANDBOX } from "../port/page-script-channel.js";
import type { BrowsingContext } from "./browsing-context.js";
import type { Download } from "./browsing-context-state.js";
import type { BrowsingContextTree } from "./browsing-context-tree.js";

/** How long a begun download may take to finish before the result is returned without it. */
const DOWNLOAD_WAIT_MS = 10_000;
/** How long a new tab may take to get its first URL. */
const NEW_TAB_WAIT_MS = 3_000;
const POLL_MS = 50;

export interface ActionEffects {
  downloads?: DownloadReport[];
  new_tabs?: NewTabReport[];
  /** Popups Firefox's popup blocker refused during the action (absent when none). */
  popups_blocked?: number;
}

/** Events of one action, gathered from its start until `collect`. */
export interface SideEffectRecorder {
  collect(): Promise<ActionEffects>;
}

/** One action's events, gathered from its start until `collect`. */
interface Recording {
  tabId: string;
  isOurs: (context: string) => boolean;
  downloads: Download[];
  tabs: BrowsingContext[];
}

export class ActionSideEffects {
  readonly #client: BidiClient;
  readonly #active = new Set<Recording>();

  /**
   * Listens to the tree once and hands events to the recordings in progress, so an action adds
   * and removes no listeners. The listeners go with the tree.
   */
  constructor(client: BidiClient, tree: BrowsingContextTree) {
    this.#client = client;
    tree.on("download", (context, download) => {
      for (const recording of this.#active)
        if (recording.isOurs(context.id)) recording.downloads.push(download);
    });
    tree.on("contextCreated", (context) => {
      for (const recording of this.#active)
        if (context.isTab && context.originalOpener === recording.tabId) recording.tabs.push(context);
    });
  }

  /** Sends downloads of these user contexts (all when none) into `dir`. */
  async routeDownloads(dir: string, userContext?: string): Promise<void> {
    await this.#client.send("browser.setDownloadBehavior", {
      downloadBehavior: { type: "allowed", destinationFolder: dir },
      ...(userContext ? { userContexts: [userContext] } : {}),
    });
  }

  /** Starts recording for an action in `tabId`; `isOurs` tells whether a context is this tab's. */
  begin(tabId: string, isOurs: (context: string) => boolean): SideEffectRecorder {
    const recording: Recording = { tabId, isOurs, downloads: [], tabs: [] };
    this.#active.add(recording);
    const { downloads, tabs } = recording;
    return {
      collect: async () => {
        // No fixed settle time: the click path's own verify round trips come after the press, so
        // events the press caused have arrived; only what has begun is waited for.
        const popupsBlocked = this.#takeBlockedPopups(tabId);
        if (downloads.length > 0)
          await waitUntil(() => downloads.every((download) => download.end), DOWNLOAD_WAIT_MS);
        this.#active.delete(recording);
        const out: ActionEffects = {};
        if (downloads.length > 0) out.downloads = await Promise.all(downloads.map(reportDownload));
        if (tabs.length > 0) out.new_tabs = await Promise.all(tabs.map((tab) => this.#reportTab(tab)));
        const blocked = await popupsBlocked;
        if (blocked > 0) out.popups_blocked = blocked;
        return out;
      },
    };
  }

  /** The page layer's count of refused popups in the tab's document, reset by the read; 0 on any failure. */
  async #takeBlockedPopups(context: string): Promise<number> {
    const answer = await this.#client
      .send("script.evaluate", {
        expression: TAKE_BLOCKED_POPUPS_EXPRESSION,
        awaitPromise: false,
        target: { context, sandbox: PAGE_SANDBOX },
        resultOwnership: "none",
      })
      .catch(() => undefined); // the tab closed or navigated away: nothing to report
    return answer?.type === "success" &&
      answer.result.type === "number" &&
      typeof answer.result.value === "number"
      ? answer.result.value
      : 0;
  }

  /** The new tab and its first URL, read from the model as its document commits (no round trip). */
  async #reportTab(tab: BrowsingContext): Promise<NewTabReport> {
    await waitUntil(() => tab.url !== "about:blank" || tab.closed, NEW_TAB_WAIT_MS);
    return { tab_id: tab.id, url: tab.url };
  }
}

async function reportDownload(download: Download): Promise<DownloadReport> {
  const filename = download.suggestedFilename;
  if (!download.end) return { filename, url: download.url, status: "in_progress" };
  const path = download.end.filepath;
  const bytes = path
    ? await stat(path).then(
        (info) => info.size,
        () => undefined,
      )
    : undefined;
  return {
    filename: path ? basename(path) : filename,
    url: download.url,
    status: download.end.status,
    ...(bytes !== undefined ? { bytes } : {}),
    ...(path ? { path } : {}),
  };
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check()) && Date.now() < deadline) await sleep(POLL_MS);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
