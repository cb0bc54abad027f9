/**
 * The add-on <-> companion contract (native messaging, one JSON object per message). The add-on
 * sends a request with an `id`; the companion answers once with the same `id`. The companion is
 * the runner's native-messaging host (`webbrain companion`); it lends the add-on the runner's
 * WebDriver BiDi paths (trusted input) in the Firefox that started it.
 *
 * Invariants:
 * - Tabs are named by a marker, never by URL: the add-on writes a random token into the tab's
 *   document (COMPANION_TAB_MARKER_ATTRIBUTE on the root element) and the companion finds the
 *   browsing context whose document carries it. Two tabs on one URL stay apart.
 * - A failed call answers `{ok: false, error}` with a sentence a person can act on; a page
 *   action's own failure is a PageResult with `success: false` inside `ok: true`.
 */
import type { AttachServerMessage } from "./attach-messages.js";

/** The host name in Firefox's native-messaging manifest. */
export const COMPANION_HOST_NAME = "webbrain_companion";

/** The add-on's optional permission that lets it start the companion. */
export const COMPANION_PERMISSION = "nativeMessaging";

/** The attribute on `document.documentElement` that carries a tab's marker. */
export const COMPANION_TAB_MARKER_ATTRIBUTE = "data-webbrain-companion-tab";

/** Which input a run's clicks and keys use: BiDi's trusted input, or the page's synthetic events. */
export type InputKind = "trusted" | "synthetic";

export type CompanionRequest =
  | { id: number; type: "hello" }
  | {
      id: number;
      type: "page_action";
      /** The tab's marker (COMPANION_TAB_MARKER_ATTRIBUTE). */
      marker: string;
      /** The add-on's tab id: the companion remembers the context it found for it. */
      tabId: number;
      action: string;
      params: Record<string, unknown>;
    }
  | {
      id: number;
      /**
       * A file the person gave the add-on (offered in the sidebar, or a download of the run), put
       * into a file input with BiDi's `input.setFiles`: the page sees a trusted change. The
       * companion keeps the bytes in its own private folder until it exits.
       */
      type: "upload_file";
      marker: string;
      tabId: number;
      /** The file input (or drop zone), as a ref from the tree or a CSS selector. */
      target: { ref_id?: number | string; selector?: string };
      file: { name: string; mime: string; dataBase64: string };
      drop?: boolean;
    }
  /** A line for an attached MCP client's socket (attach-messages.ts). */
  | { id: number; type: "attach_send"; client: number; message: AttachServerMessage }
  /** Ends a client's access: the companion sends `revoked` with the reason and closes its socket. */
  | { id: number; type: "attach_close"; client: number; reason: string };

/** What `hello` answers: whether this Firefox offers BiDi to the companion, and if not, why. */
export interface CompanionHello {
  bidi: boolean;
  /** Why there is no BiDi (and how to start Firefox with it); absent when `bidi` is true. */
  reason?: string;
  /** e.g. "Firefox 153.0 (connected at ws://127.0.0.1:9222)". */
  browser?: string;
  /** The BiDi endpoint the companion found for the Firefox that started it, when it found one. */
  endpoint?: string;
  /** The companion's process id (what a person or a test looks for after Firefox quits). */
  pid: number;
}

export type CompanionResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: string };
