/**
 * The companion: a native-messaging host that lends the add-on the runner's WebDriver BiDi paths
 * in the Firefox that started it. Requests come from the add-on on stdin, answers go to stdout
 * (native-messaging.ts); the contract is @webbrain/protocol's companion-messages.ts.
 *
 * Invariants:
 * - Nothing is left behind: stdin's end (Firefox closed the port, or quit) ends the session we
 *   opened (`session.end`, never `browser.close`: the Firefox is the user's) and the process.
 * - The BiDi session is opened at the first request and kept; if it is lost, or could not be
 *   opened, the next request tries again. A Firefox without BiDi answers `hello` with
 *   `bidi: false` and the reason, and every page action with that reason.
 * - The companion acts only in tabs the add-on names by marker, and opens no tab of its own;
 *   page actions run through BidiBrowserPort, the runner's own port (trusted input, closed
 *   shadow roots, CSP-free execute_js), so nothing here speaks BiDi for the page itself.
 * - It answers a page's dialog (alert, confirm, prompt, beforeunload) only in a tab where one of
 *   the add-on's page actions is in flight, and reports it in that action's result as the runner
 *   does; a dialog the person opens in their own Firefox stays theirs.
 * - A file the add-on sends for upload_file is written only under its private downloads folder
 *   (removed at exit) and put into the page with `input.setFiles`; no other path is read.
 * - It relays `webbrain mcp --own-firefox` clients (attach-socket.ts) to the add-on and back, and
 *   decides nothing about them: consent, tabs and gates are the add-on's.
 */
import { randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { PageActionName } from "@webbrain/agent";
import type { CompanionEvent, CompanionHello, CompanionRequest, CompanionResponse } from "@webbrain/protocol";
import { type BrowserConnection, openBrowserConnection } from "../browser/browser-connection.js";
import { BidiBrowserPort } from "../port/bidi-browser-port.js";
import { loadPageScript } from "../port/page-script-source.js";
import { AttachSocketServer, attachSocketDir } from "./attach-socket.js";
import {
  COMPANION_DOWNLOADS_PREFIX,
  DOWNLOAD_FOLDERS,
  sweepDeadCompanionLeftovers,
} from "./dead-companion-leftovers.js";
import { type BidiDiscovery, discoverFirefoxBidi } from "./firefox-endpoint.js";
import { findMarkedTab } from "./tab-marker.js";

/**
 * An existing BiDi session to use instead of finding this Firefox's endpoint: a URL with a
 * session id (`ws://host:port/session/<id>`), to which no `session.new` is sent and which is not
 * ended on exit. For tests, whose harness already holds the browser's one session (Firefox 153
 * refuses a second `session.new`, "Maximum number of active sessions", and serves no
 * /session/<id> path for sessions opened over WebSocket), so it lends its session through a relay.
 */
export const COMPANION_SESSION_ENV = "WEBBRAIN_COMPANION_SESSION";

export interface CompanionOptions {
  /** Where the BiDi endpoint is; default: the parent Firefox's (firefox-endpoint.ts). */
  discover?: () => Promise<BidiDiscovery>;
  env?: Record<string, string | undefined>;
}

interface OpenBrowser {
  connection: BrowserConnection;
  port: BidiBrowserPort;
  downloadsDir: string;
}

type Opened = { ok: true; browser: OpenBrowser } | { ok: false; reason: string };

export class Companion {
  readonly #discover: () => Promise<BidiDiscovery>;
  readonly #lentSession: string | undefined;
  #opening: Promise<Opened> | undefined;
  /** The context found for each of the add-on's tabs (a context is one tab for its whole life). */
  readonly #contexts = new Map<number, string>();
  /** Page actions in flight per context: only there are dialogs answered (see the header). */
  readonly #acting = new Map<string, number>();
  /** The `mcp --own-firefox` clients' socket, once serveCompanion opened it. */
  #sockets: AttachSocketServer | undefined;

  attachTo(sockets: AttachSocketServer): void {
    this.#sockets = sockets;
  }

  constructor(opts: CompanionOptions = {}) {
    this.#discover = opts.discover ?? (() => discoverFirefoxBidi());
    this.#lentSession = (opts.env ?? process.env)[COMPANION_SESSION_ENV] || undefined;
  }

  async handle(request: CompanionRequest): Promise<CompanionResponse> {
    try {
      if (request.type === "hello") return { id: request.id, ok: true, result: await this.#hello() };
      if (request.type === "page_action")
        return { id: request.id, ok: true, result: await this.#pageAction(request) };
      if (request.type === "upload_file")
        return { id: request.id, ok: true, result: await this.#uploadFile(request) };
      if (request.type === "attach_send")
        return {
          id: request.id,
          ok: true,
          result: this.#sockets?.send(request.client, request.message) ?? false,
        };
      if (request.type === "attach_close")
        return {
          id: request.id,
          ok: true,
          result: this.#sockets?.close(request.client, request.reason) ?? false,
        };
      const unknown: { id?: unknown; type?: unknown } = request;
      return {
        id: Number(unknown.id),
        ok: false,
        error: `The companion does not know "${String(unknown.type)}".`,
      };
    } catch (error) {
      return { id: request.id, ok: false, error: `The companion failed: ${(error as Error).message}` };
    }
  }

  async #hello(): Promise<CompanionHello> {
    const opened = await this.#browser();
    const found = await this.#discover();
    const about = { pid: process.pid, ...(found.found ? { endpoint: found.endpoint } : {}) };
    if (!opened.ok) return { bidi: false, reason: opened.reason, ...about };
    return { bidi: true, browser: opened.browser.connection.description, ...about };
  }

  async #pageAction(request: Extract<CompanionRequest, { type: "page_action" }>): Promise<unknown> {
    const { browser, context } = await this.#tabOf(request);
    this.#acting.set(context, (this.#acting.get(context) ?? 0) + 1);
    try {
      return await browser.port.pageAction(context, request.action as PageActionName, request.params);
    } finally {
      const left = (this.#acting.get(context) ?? 1) - 1;
      if (left > 0) this.#acting.set(context, left);
      else this.#acting.delete(context);
    }
  }

  /**
   * The file's bytes into a folder of its own under the companion's private downloads folder
   * (0700; the file 0600), then the port's upload_file with that path (its check allows this
   * folder). Kept until the companion exits: the page reads a File from the path lazily.
   */
  async #uploadFile(request: Extract<CompanionRequest, { type: "upload_file" }>): Promise<unknown> {
    const { browser, context } = await this.#tabOf(request);
    const folder = join(browser.downloadsDir, "given", randomUUID());
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const path = join(folder, basename(request.file.name.replace(/\\/g, "/")) || "file");
    await writeFile(path, Buffer.from(request.file.dataBase64, "base64"), { mode: 0o600 });
    return browser.port.uploadFile(context, {
      path,
      ...(request.target.ref_id !== undefined ? { ref_id: request.target.ref_id } : {}),
      ...(request.target.selector !== undefined ? { selector: request.target.selector } : {}),
      ...(request.drop ? { drop: true } : {}),
    });
  }

  /** The open browser and the context of the add-on's tab (found by its marker, then kept). */
  async #tabOf(request: {
    tabId: number;
    marker: string;
  }): Promise<{ browser: OpenBrowser; context: string }> {
    const opened = await this.#browser();
    if (!opened.ok) throw new Error(opened.reason);
    const { port } = opened.browser;
    let context = this.#contexts.get(request.tabId);
    if (context === undefined || !port.tabs.has(context)) {
      context = await findMarkedTab(port.client, port.tabs.ids(), request.marker);
      if (context === undefined) {
        throw new Error(
          `no tab of this Firefox carries the add-on's marker for tab ${request.tabId} (the page may be one the add-on cannot reach, such as about: pages).`,
        );
      }
      this.#contexts.set(request.tabId, context);
    }
    return { browser: opened.browser, context };
  }

  #browser(): Promise<Opened> {
    this.#opening ??= this.#open().then((opened) => {
      // A failure is not kept: Firefox may be restarted with BiDi, or the socket come back.
      if (!opened.ok) this.#opening = undefined;
      else {
        void opened.browser.connection.lost.then(() => {
          this.#opening = undefined;
          this.#contexts.clear();
          opened.browser.port.dispose();
        });
      }
      return opened;
    });
    return this.#opening;
  }

  async #open(): Promise<Opened> {
    let endpoint = this.#lentSession;
    if (endpoint === undefined) {
      const found = await this.#discover();
      if (!found.found) return { ok: false, reason: found.reason };
      endpoint = found.endpoint;
    }
    let connection: BrowserConnection;
    try {
      connection = await openBrowserConnection({ connect: endpoint });
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
    // Named by our pid, so the next companion can sweep it if Firefox's kill takes us with it.
    await sweepDeadCompanionLeftovers(tmpdir(), DOWNLOAD_FOLDERS);
    const downloadsDir = join(tmpdir(), `${COMPANION_DOWNLOADS_PREFIX}${process.pid}-${randomUUID()}`);
    try {
      const port = await BidiBrowserPort.open({
        client: connection.client,
        pageScript: await loadPageScript(),
        downloadsDir,
        workTab: false,
      });
      port.dialogs.answerOnlyIn((context) => this.#acting.has(context));
      return { ok: true, browser: { connection, port, downloadsDir } };
    } catch (error) {
      await connection.close().catch(() => {});
      return {
        ok: false,
        reason: `The BiDi session opened but the companion could not start on it: ${(error as Error).message}`,
      };
    }
  }

  /** Ends the session (if we opened it; a lent one is only disconnected) and forgets the tabs. */
  async close(): Promise<void> {
    const opening = this.#opening;
    this.#opening = undefined;
    const opened = await opening;
    if (!opened?.ok) return;
    opened.browser.port.dispose();
    await opened.browser.connection.close().catch(() => {});
    await rm(opened.browser.downloadsDir, { recursive: true, force: true });
  }
}

function isRequest(message: unknown): message is CompanionRequest {
  if (typeof message !== "object" || message === null) return false;
  const { id, type } = message as { id?: unknown; type?: unknown };
  return typeof id === "number" && typeof type === "string";
}

/**
 * Serves the add-on until `messages` ends. Requests run as they come (the add-on may have calls
 * for several tabs in flight); each answer is written whole, in the order the calls finish.
 * `attachDir` is where `mcp --own-firefox` clients find this companion's socket (undefined: none);
 * a folder that fails its checks leaves the companion without one and says why on stderr.
 */
export async function serveCompanion(
  messages: AsyncIterable<unknown>,
  send: (message: CompanionResponse | CompanionEvent) => void,
  companion: Companion = new Companion(),
  attachDir: string | undefined = attachSocketDir(),
): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  const sockets =
    attachDir === undefined
      ? undefined
      : await AttachSocketServer.listen(attachDir, send).catch((error: unknown) => {
          process.stderr.write(
            `webbrain companion: no socket for mcp --own-firefox: ${(error as Error).message}\n`,
          );
          return undefined;
        });
  if (sockets) companion.attachTo(sockets);
  try {
    for await (const message of messages) {
      if (!isRequest(message)) continue;
      const call = companion.handle(message).then(send);
      inFlight.add(call);
      void call.finally(() => inFlight.delete(call));
    }
  } finally {
    // Firefox has closed our stdin: nobody can read an answer any more.
    await sockets?.stop();
    await companion.close();
  }
}
