/**
 * The add-on's side of the companion (`webbrain companion`, the runner's native-messaging host):
 * one native port, opened at the first call, carrying requests by id (companion-messages.ts in
 * @webbrain/protocol). The companion lends the runner's WebDriver BiDi port: trusted clicks and
 * keys in a Firefox started with --remote-debugging-port.
 *
 * Invariants:
 * - A companion that dies (crash, kill, uninstall) disconnects the port: every call in flight
 *   fails at once with CompanionGoneError, whose message says so, and the next call starts a new
 *   companion (a new port).
 * - A tab is named by a random marker written into its document (the root element's
 *   COMPANION_TAB_MARKER_ATTRIBUTE), written again before each call because a navigation drops
 *   it; the companion never matches tabs by URL.
 * - Stop (the signal) rejects the call at once; the companion finishes a press it has started.
 * - Messages the companion sends unasked (CompanionEvent: an `mcp --own-firefox` client's lines)
 *   go to the event listeners; when the port closes, listeners hear `gone`.
 */
import { base64Of, type PageResult } from "@webbrain/agent";
import {
  type AttachServerMessage,
  COMPANION_HOST_NAME,
  COMPANION_TAB_MARKER_ATTRIBUTE,
  type CompanionEvent,
  type CompanionHello,
  type CompanionRequest,
  type CompanionResponse,
} from "@webbrain/protocol";
import { raceStop } from "./abort.js";

export class CompanionGoneError extends Error {
  override readonly name = "CompanionGoneError";
}

/** What the client needs of Firefox (the tests' seam). */
export interface CompanionIo {
  connect(): browser.runtime.Port;
  /** Writes the marker into the tab's top document. */
  mark(tabId: number, marker: string): Promise<void>;
}

type Pending = { resolve: (response: CompanionResponse) => void; reject: (error: Error) => void };
type RequestBody = CompanionRequest extends infer R
  ? R extends CompanionRequest
    ? Omit<R, "id">
    : never
  : never;

export const firefoxCompanionIo: CompanionIo = {
  connect: () => browser.runtime.connectNative(COMPANION_HOST_NAME),
  mark: async (tabId, marker) => {
    await browser.tabs.executeScript(tabId, {
      code: `document.documentElement.setAttribute(${JSON.stringify(COMPANION_TAB_MARKER_ATTRIBUTE)}, ${JSON.stringify(marker)}); true;`,
      runAt: "document_start",
    });
  },
};

export class CompanionClient {
  readonly #io: CompanionIo;
  #port: browser.runtime.Port | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #markers = new Map<number, string>();
  readonly #listeners = new Set<(event: CompanionEvent | { type: "gone" }) => void>();

  constructor(io: CompanionIo = firefoxCompanionIo) {
    this.#io = io;
  }

  hello(): Promise<CompanionHello> {
    return this.#call({ type: "hello" }).then((result) => result as CompanionHello);
  }

  async pageAction(
    tabId: number,
    action: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const marker = await this.#mark(tabId);
    const result = await raceStop(this.#call({ type: "page_action", tabId, marker, action, params }), signal);
    return result as PageResult;
  }

  /** Puts a file the person gave into the tab's file input with BiDi's trusted `input.setFiles`. */
  async uploadFile(
    tabId: number,
    target: { ref_id?: number | string; selector?: string },
    file: { name: string; mime: string; data: Uint8Array },
    drop: boolean,
  ): Promise<PageResult> {
    const marker = await this.#mark(tabId);
    const dataBase64 = base64Of(file.data);
    const result = await this.#call({
      type: "upload_file",
      tabId,
      marker,
      target,
      file: { name: file.name, mime: file.mime, dataBase64 },
      ...(drop ? { drop: true } : {}),
    });
    return result as PageResult;
  }

  /** The tab's marker, written (again: a navigation drops it) into its document. */
  async #mark(tabId: number): Promise<string> {
    let marker = this.#markers.get(tabId);
    if (marker === undefined) {
      marker = crypto.randomUUID();
      this.#markers.set(tabId, marker);
    }
    await this.#io.mark(tabId, marker);
    return marker;
  }

  /** Hears the companion's unasked messages, and `gone` when its port closes. */
  onEvent(listener: (event: CompanionEvent | { type: "gone" }) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A line for an attached MCP client (false: that client is gone). */
  async attachSend(client: number, message: AttachServerMessage): Promise<boolean> {
    return (await this.#call({ type: "attach_send", client, message })) === true;
  }

  /** Ends an attached client's access: it is told why and its socket closes. */
  async attachClose(client: number, reason: string): Promise<boolean> {
    return (await this.#call({ type: "attach_close", client, reason })) === true;
  }

  forgetTab(tabId: number): void {
    this.#markers.delete(tabId);
  }

  /** Closes the port: the companion sees its stdin end and exits. */
  disconnect(): void {
    const port = this.#port;
    this.#port = undefined;
    port?.disconnect();
    if (port) for (const listener of this.#listeners) listener({ type: "gone" });
    this.#failAll(new CompanionGoneError("The companion was turned off."));
  }

  async #call(body: RequestBody): Promise<unknown> {
    const port = this.#open();
    const id = this.#nextId++;
    const response = await new Promise<CompanionResponse>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      port.postMessage({ ...body, id });
    });
    if (!response.ok) throw new Error(response.error);
    return response.result;
  }

  #open(): browser.runtime.Port {
    if (this.#port) return this.#port;
    const port = this.#io.connect();
    port.onMessage.addListener((message) => {
      if (typeof (message as { type?: unknown }).type === "string") {
        for (const listener of this.#listeners) listener(message as CompanionEvent);
        return;
      }
      const response = message as CompanionResponse;
      const pending = this.#pending.get(response.id);
      this.#pending.delete(response.id);
      pending?.resolve(response);
    });
    port.onDisconnect.addListener((gone) => {
      if (this.#port !== port) return;
      this.#port = undefined;
      for (const listener of this.#listeners) listener({ type: "gone" });
      const why = gone.error?.message ? ` (${gone.error.message})` : "";
      this.#failAll(
        new CompanionGoneError(
          `The companion stopped${why}; this call was not finished. The next call starts it again.`,
        ),
      );
    });
    this.#port = port;
    return port;
  }

  #failAll(error: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const call of pending) call.reject(error);
  }
}
