/**
 * One Firefox, many isolated sessions: each session works in its own BiDi user context
 * (`browser.createUserContext`), so cookies, storage and tabs of one never reach another. Used
 * by `webbrain mcp --port` (one session per MCP client session) and `webbrain run --tasks`
 * (one session per task, N at a time).
 *
 * Invariants:
 * - `IsolatedSession.close()` removes its user context (which closes its tabs) and its
 *   downloads folder; it is idempotent and never throws.
 * - `SessionBrowser.close()` closes every open session, then the browser connection (a Firefox
 *   we launched is quit and its temp profile removed).
 * - A storage state given at open is loaded into every new session, so isolated sessions can
 *   start logged in.
 */
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskFailedError } from "../errors.js";
import { BidiBrowserPort } from "../port/bidi-browser-port.js";
import type { RunnerLocalFiles } from "../tools/local-files.js";
import {
  type BrowserConnection,
  type BrowserConnectionOptions,
  openBrowserConnection,
} from "./browser-connection.js";
import type { DialogPolicy } from "./dialog-handler.js";
import { checkStorageStateFile, loadStorageState } from "./storage-state.js";

export interface SessionBrowserOptions extends BrowserConnectionOptions {
  pageScript: () => Promise<string>;
  /** Loaded into every session. */
  storageState?: string;
  /** Size limit of one download (`--max-download-mb`). */
  maxDownloadBytes?: number;
  dialogPolicy?: DialogPolicy;
  /** What the user allowed of their files, for every session's port. */
  localFiles?: RunnerLocalFiles;
}

export interface IsolatedSession {
  port: BidiBrowserPort;
  /** The tab the session works in. */
  tabId: string;
  userContext: string;
  close(): Promise<void>;
}

const DOWNLOADS_DIR_PREFIX = "webbrain-downloads-";

export class SessionBrowser {
  readonly #connection: BrowserConnection;
  readonly #pageScript: string;
  readonly #options: SessionBrowserOptions;
  readonly #open = new Set<IsolatedSession>();

  private constructor(connection: BrowserConnection, pageScript: string, options: SessionBrowserOptions) {
    this.#connection = connection;
    this.#pageScript = pageScript;
    this.#options = options;
  }

  static async open(options: SessionBrowserOptions): Promise<SessionBrowser> {
    // A bad --storage-state is a usage error before Firefox starts, not at the first session.
    if (options.storageState) await checkStorageStateFile(options.storageState);
    const pageScript = await options.pageScript();
    const connection = await openBrowserConnection(options);
    return new SessionBrowser(connection, pageScript, options);
  }

  get description(): string {
    return this.#connection.description;
  }

  /** Resolves with the reason once the browser is gone without our asking. */
  get lost(): Promise<Error> {
    return this.#connection.lost;
  }

  get sessionCount(): number {
    return this.#open.size;
  }

  /** A new user context with one tab (on `url` if given). */
  async openSession(url?: string): Promise<IsolatedSession> {
    const client = this.#connection.client;
    const { userContext } = await client.send("browser.createUserContext", {});
    const downloadsDir = join(tmpdir(), `${DOWNLOADS_DIR_PREFIX}${randomUUID()}`);
    let port: BidiBrowserPort | undefined;
    let closed: Promise<void> | undefined;
    const close = () => {
      closed ??= (async () => {
        this.#open.delete(session);
        port?.dispose();
        await client.send("browser.removeUserContext", { userContext }).catch(() => {});
        await rm(downloadsDir, { recursive: true, force: true });
      })();
      return closed;
    };
    const session: IsolatedSession = {
      get port() {
        return port!;
      },
      tabId: "",
      userContext,
      close,
    };
    try {
      port = await BidiBrowserPort.open({
        client,
        pageScript: this.#pageScript,
        downloadsDir,
        userContext,
        ...(this.#options.maxDownloadBytes ? { maxDownloadBytes: this.#options.maxDownloadBytes } : {}),
        ...(this.#options.dialogPolicy ? { dialogPolicy: this.#options.dialogPolicy } : {}),
        ...(this.#options.localFiles ? { localFiles: this.#options.localFiles } : {}),
      });
      session.tabId = port.tabs.activeId!;
      if (this.#options.storageState) {
        await loadStorageState(client, session.tabId, this.#options.storageState, userContext);
      }
      if (url) {
        const opened = await port.navigate(session.tabId, url);
        if (!opened.success) throw new TaskFailedError(String(opened.error));
      }
    } catch (error) {
      await close();
      throw error;
    }
    this.#open.add(session);
    return session;
  }

  async close(): Promise<void> {
    for (const session of [...this.#open]) await session.close();
    await this.#connection.close().catch(() => {});
  }
}
