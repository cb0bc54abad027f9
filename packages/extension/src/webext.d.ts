/**
 * The slice of Firefox's WebExtension API (`browser.*`, promise-based) that this add-on uses.
 *
 * Written by hand from MDN because no typings package is installed; only what the code calls is
 * declared, so a call to anything else is a type error rather than a silent `unknown`.
 */

declare namespace browser {
  namespace runtime {
    interface MessageSender {
      tab?: tabs.Tab;
      frameId?: number;
      id?: string;
      url?: string;
    }
    interface Port {
      name: string;
      sender?: MessageSender;
      error?: { message: string } | null;
      postMessage(message: unknown): void;
      disconnect(): void;
      onMessage: WebExtEvent<(message: unknown, port: Port) => void>;
      onDisconnect: WebExtEvent<(port: Port) => void>;
    }
    interface InstalledDetails {
      reason: "install" | "update" | "browser_update" | "shared_module_update";
      temporary?: boolean;
    }
    function sendMessage(message: unknown): Promise<unknown>;
    function connect(info?: { name?: string }): Port;
    /** A native-messaging host (permission "nativeMessaging"); the port disconnects if it dies. */
    function connectNative(application: string): Port;
    function getURL(path: string): string;
    function openOptionsPage(): Promise<void>;
    function getManifest(): { version: string; name: string };
    const onMessage: WebExtEvent<
      (message: unknown, sender: MessageSender) => Promise<unknown> | undefined | boolean
    >;
    const onConnect: WebExtEvent<(port: Port) => void>;
    const onInstalled: WebExtEvent<(details: InstalledDetails) => void>;
  }

  namespace tabs {
    interface Tab {
      id?: number;
      windowId?: number;
      index: number;
      url?: string;
      title?: string;
      active: boolean;
      status?: "loading" | "complete";
      hidden?: boolean;
      openerTabId?: number;
    }
    interface ChangeInfo {
      status?: "loading" | "complete";
      url?: string;
      title?: string;
    }
    interface CreateProperties {
      url?: string;
      active?: boolean;
      windowId?: number;
      openerTabId?: number;
    }
    interface InjectDetails {
      code?: string;
      file?: string;
      allFrames?: boolean;
      frameId?: number;
      runAt?: "document_start" | "document_end" | "document_idle";
    }
    interface ImageDetails {
      format?: "png" | "jpeg";
      quality?: number;
      /** Page coordinates to capture, also outside the viewport (Firefox 82+). */
      rect?: { x: number; y: number; width: number; height: number };
      /** Device pixels per CSS pixel of the image (default: the window's). */
      scale?: number;
    }
    function query(info: {
      active?: boolean;
      currentWindow?: boolean;
      url?: string | string[];
    }): Promise<Tab[]>;
    function get(tabId: number): Promise<Tab>;
    function create(props: CreateProperties): Promise<Tab>;
    function update(tabId: number, props: { url?: string; active?: boolean }): Promise<Tab>;
    function remove(tabId: number | number[]): Promise<void>;
    function goBack(tabId: number): Promise<void>;
    function goForward(tabId: number): Promise<void>;
    function hide(tabId: number | number[]): Promise<number[]>;
    function executeScript(tabId: number, details: InjectDetails): Promise<unknown[]>;
    function sendMessage(tabId: number, message: unknown, options?: { frameId?: number }): Promise<unknown>;
    function captureTab(tabId: number, options?: ImageDetails): Promise<string>;
    const onActivated: WebExtEvent<(info: { tabId: number; windowId: number }) => void>;
    const onUpdated: WebExtEvent<(tabId: number, changeInfo: ChangeInfo, tab: Tab) => void>;
    const onRemoved: WebExtEvent<(tabId: number) => void>;
    const onCreated: WebExtEvent<(tab: Tab) => void>;
  }

  namespace storage {
    interface StorageArea {
      get(keys?: string | string[] | null): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
      remove(keys: string | string[]): Promise<void>;
    }
    interface StorageChange {
      oldValue?: unknown;
      newValue?: unknown;
    }
    const local: StorageArea;
    const session: StorageArea;
    const onChanged: WebExtEvent<(changes: Record<string, StorageChange>, areaName: string) => void>;
  }

  namespace downloads {
    interface DownloadItem {
      id: number;
      url: string;
      filename: string;
      mime?: string;
      fileSize: number;
      totalBytes: number;
      bytesReceived: number;
      exists: boolean;
      state: "in_progress" | "complete" | "interrupted";
      startTime: string;
      error?: string;
      /** The page the download came from (Firefox sets it for a page's own downloads). */
      referrer?: string;
    }
    function search(query: { limit?: number; orderBy?: string[]; id?: number }): Promise<DownloadItem[]>;
    function download(options: { url: string; filename?: string; saveAs?: boolean }): Promise<number>;
    function cancel(id: number): Promise<void>;
    function removeFile(id: number): Promise<void>;
    function erase(query: { id?: number }): Promise<number[]>;
    const onCreated: WebExtEvent<(item: DownloadItem) => void>;
  }

  namespace browserAction {
    const onClicked: WebExtEvent<(tab: tabs.Tab) => void>;
    function setBadgeText(details: { text: string; tabId?: number }): Promise<void>;
    function setBadgeBackgroundColor(details: { color: string; tabId?: number }): Promise<void>;
    function getBadgeText(details: { tabId?: number }): Promise<string>;
  }

  namespace windows {
    interface Window {
      id?: number;
      tabs?: tabs.Tab[];
    }
    function create(data: { url?: string; focused?: boolean }): Promise<Window>;
  }

  namespace sidebarAction {
    function open(): Promise<void>;
  }

  namespace notifications {
    interface CreateOptions {
      type: "basic";
      title: string;
      message: string;
      iconUrl?: string;
    }
    function create(id: string, options: CreateOptions): Promise<string>;
    function clear(id: string): Promise<boolean>;
    function getAll(): Promise<Record<string, CreateOptions>>;
    const onClicked: WebExtEvent<(id: string) => void>;
  }

  /** Optional permissions (manifest `optional_permissions`), asked for from a user action. */
  namespace permissions {
    interface Permissions {
      permissions?: string[];
      origins?: string[];
    }
    function contains(permissions: Permissions): Promise<boolean>;
    function request(permissions: Permissions): Promise<boolean>;
    function remove(permissions: Permissions): Promise<boolean>;
  }

  /** Present only once the optional `history` permission is granted (see webext-history.ts). */
  namespace history {
    interface HistoryItem {
      id: string;
      url?: string;
      title?: string;
      lastVisitTime?: number;
      visitCount?: number;
      typedCount?: number;
    }
    interface VisitItem {
      id: string;
      visitId: string;
      visitTime?: number;
      referringVisitId: string;
      transition: string;
    }
    function search(query: {
      text: string;
      startTime?: number;
      endTime?: number;
      maxResults?: number;
    }): Promise<HistoryItem[]>;
    function getVisits(details: { url: string }): Promise<VisitItem[]>;
  }

  namespace menus {
    type ContextType = "all" | "page" | "selection" | "link" | "image" | "editable" | "frame";
    interface CreateProperties {
      id: string;
      title: string;
      contexts: ContextType[];
    }
    /** What was right-clicked (the fields this add-on reads). */
    interface OnClickData {
      menuItemId: string | number;
      selectionText?: string;
      linkUrl?: string;
      linkText?: string;
      srcUrl?: string;
      mediaType?: string;
      pageUrl?: string;
      frameId?: number;
      targetElementId?: number;
    }
    function create(properties: CreateProperties, callback?: () => void): string | number;
    function update(id: string | number, properties: Partial<Omit<CreateProperties, "id">>): Promise<void>;
    function removeAll(): Promise<void>;
    const onClicked: WebExtEvent<(info: OnClickData, tab?: tabs.Tab) => void>;
  }
}

interface WebExtEvent<Listener> {
  addListener(listener: Listener): void;
  removeListener(listener: Listener): void;
  hasListener(listener: Listener): boolean;
}
