/**
 * What an attached MCP client (`webbrain mcp --own-firefox`) may see of the person's Firefox: the
 * tabs they shared in the sidebar, and the tabs its own calls opened. The client's port is the
 * add-on's port narrowed to those tabs.
 *
 * Invariants:
 * - A tab that is not shared does not exist for the client: list_tabs leaves it out, the active
 *   tab is reported only when shared, and every call naming it is refused with a sentence saying
 *   the person shares tabs in the sidebar. Its URL and title never reach the client.
 * - The person's history, their other downloads and local files are not lent: the client sees
 *   only downloads its own calls started. pause_for_user shows the client's own take-over card
 *   in the sidebar (`takeOver`), never a run's.
 */
import {
  type BrowserPort,
  decoratePort,
  type PageResult,
  type PersonAnswer,
  type PortCallOptions,
  type TabId,
  type TabInfo,
} from "@webbrain/agent";
import type { BrowserCapability } from "@webbrain/protocol";

/** What the person never lends an attached client (see the header). */
const NOT_LENT: readonly BrowserCapability[] = ["history"];

export class SharedTabs {
  readonly #tabs = new Set<string>();

  constructor(tabIds: Iterable<number | string>) {
    for (const id of tabIds) this.#tabs.add(String(id));
  }

  has(tabId: TabId | number): boolean {
    return this.#tabs.has(String(tabId));
  }

  add(tabId: TabId | number): void {
    this.#tabs.add(String(tabId));
  }

  forget(tabId: TabId | number): void {
    this.#tabs.delete(String(tabId));
  }

  ids(): number[] {
    return [...this.#tabs].map(Number);
  }
}

export function notSharedMessage(tabId: TabId): string {
  return `Tab ${tabId} is not shared with this client; the person shares tabs in the WebBrain sidebar.`;
}

export class TabNotSharedError extends Error {
  override readonly name = "TabNotSharedError";
}

/**
 * The add-on's port narrowed to `shared` (and `onOpened` told of every tab the client opens, in
 * the window of `home`, the first tab the person gave it: a client given a window of its own keeps
 * its tabs there); `takeOver` shows the person the client's message and waits for Continue.
 */
export function scopedPort(
  port: BrowserPort,
  shared: SharedTabs,
  home: TabId,
  onOpened: (tab: TabInfo) => void,
  takeOver: (message: string, options?: PortCallOptions) => Promise<PersonAnswer>,
): BrowserPort {
  const refused = (tabId: TabId): PageResult => ({ success: false, error: notSharedMessage(tabId) });
  /** For calls that answer something other than a PageResult: the refusal is thrown. */
  const requireShared = (tabId: TabId) => {
    if (!shared.has(tabId)) throw new TabNotSharedError(notSharedMessage(tabId));
  };
  const ownDownloads = new Set<string>();
  const guard =
    <A extends unknown[]>(call: (tabId: TabId, ...rest: A) => Promise<PageResult>) =>
    (tabId: TabId, ...rest: A) =>
      shared.has(tabId) ? call(tabId, ...rest) : Promise.resolve(refused(tabId));
  const capabilities = new Set([
    ...[...port.capabilities].filter((capability) => !NOT_LENT.includes(capability)),
    "person_at_hand" as const,
  ]);
  return decoratePort(port, {
    capabilities,
    localFiles: undefined,
    history: undefined,
    pauseForUser: takeOver,
    listTabs: async (options) => (await port.listTabs(options)).filter((tab) => shared.has(tab.id)),
    activeTab: async (options) => {
      const tab = await port.activeTab(options);
      return tab && shared.has(tab.id) ? tab : undefined;
    },
    getTab: async (tabId, options) => {
      requireShared(tabId);
      return port.getTab(tabId, options);
    },
    newTab: async (url, options) => {
      const tab = await port.newTab(url, { ...options, besideTab: home });
      shared.add(tab.id);
      onOpened(tab);
      return tab;
    },
    navigate: guard((tabId, url: string, options) => port.navigate(tabId, url, options)),
    goBack: guard((tabId, options) => port.goBack(tabId, options)),
    goForward: guard((tabId, options) => port.goForward(tabId, options)),
    pageAction: guard((tabId, action, params, options) => port.pageAction(tabId, action, params, options)),
    screenshot: async (tabId, options) => {
      requireShared(tabId);
      return port.screenshot(tabId, options);
    },
    ...(port.waitForNavigation
      ? {
          waitForNavigation: guard((tabId, timeoutMs: number, options) =>
            port.waitForNavigation!(tabId, timeoutMs, options),
          ),
        }
      : {}),
    ...(port.uploadFile
      ? { uploadFile: guard((tabId, request, options) => port.uploadFile!(tabId, request, options)) }
      : {}),
    ...(port.checkUpload
      ? {
          checkUpload: async (tabId, request, options) => {
            requireShared(tabId);
            return port.checkUpload!(tabId, request, options);
          },
        }
      : {}),
    ...(port.download
      ? {
          download: async (url, filename, options) => {
            const info = await port.download!(url, filename, options);
            ownDownloads.add(info.id);
            return info;
          },
        }
      : {}),
    listDownloads: async (options) =>
      (await port.listDownloads(options)).filter((download) => ownDownloads.has(download.id)),
    readDownload: async (id, options) => {
      if (!ownDownloads.has(id)) throw new Error(`Download ${id} was not started by this client.`);
      return port.readDownload(id, options);
    },
  });
}
