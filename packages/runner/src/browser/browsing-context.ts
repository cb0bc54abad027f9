/**
 * BrowsingContext: one BiDi browsing context (a tab or a frame) as the runner knows it, kept
 * from the events its BrowsingContextTree routes to it (in the style of puppeteer-core's
 * `bidi/core`: one object per spec object, state from events, a disposal chain).
 *
 * State: parent and children, the document's URL and title, the navigation in progress, the
 * open dialog, the downloads it started, the requests in flight. Readers never send a command to
 * learn these; only a title never read yet costs one `script.evaluate`.
 *
 * Invariants:
 * - Created by the tree only (a `contextCreated` of a context in its scope, or `getTree` at
 *   start); disposed once: `contextDestroyed`, its parent's disposal, or the tree's.
 * - Disposal runs children first, then ends every wait on this context with its gone error
 *   (TabGoneError for a tab, FrameGoneError for a frame), emits `closed`, and drops every listener
 *   registered on it. Nothing registered on a context outlives it.
 * - Events are applied to the state before listeners hear them, so a listener reads the new state.
 */
import type { BidiClient } from "@webbrain/bidi";
import { stoppedError } from "../port/stop-signal.js";
import type {
  BrowsingContextEvents,
  ContextEvent,
  Download,
  DownloadEnd,
  Navigation,
  OpenPrompt,
  RequestInFlight,
} from "./browsing-context-state.js";
import { ContextDocument, HISTORY_CHANNEL, readDocumentTitle } from "./context-documents.js";
import { contextGoneError } from "./context-gone.js";
import { EventListeners } from "./event-listeners.js";

/** How many times `title` follows a context to a newer document while waiting. */
const TITLE_FOLLOW_LIMIT = 3;
/** Downloads remembered per context (the newest); an action keeps its own references. */
const MAX_DOWNLOADS_KEPT = 50;
/**
 * Requests older than this are forgotten: a request whose end Firefox never reported (a frame
 * torn down mid-request) must not stay in memory for the life of a long-running tab, ms.
 */
const REQUEST_FORGET_MS = 5 * 60_000;

/** What a context needs of its tree. */
export interface ContextLinks {
  readonly client: BidiClient;
  /** The sandbox titles are read in (the page script's, so page scripts cannot interfere). */
  readonly sandbox: string;
  /** Called once, at the end of the context's disposal. */
  disposed(context: BrowsingContext, reason: string): void;
}

/** The BiDi facts a context starts from (`contextCreated`, or an entry of `getTree`). */
export interface ContextOrigin {
  id: string;
  url: string;
  userContext: string;
  originalOpener: string | undefined;
}

export interface WaitOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Names the wait in the Stop error ("waiting for the page to load"). */
  what: string;
}

export class BrowsingContext {
  readonly id: string;
  readonly parent: BrowsingContext | undefined;
  readonly userContext: string;
  /** The context whose page opened this one (window.open, a target=_blank link). */
  readonly originalOpener: string | undefined;
  readonly #links: ContextLinks;
  readonly #children = new Map<string, BrowsingContext>();
  readonly #listeners = new EventListeners<BrowsingContextEvents>();
  /** Rejecters of the waits in progress, called with the gone error at disposal. */
  readonly #waits = new Set<(error: Error) => void>();
  #document: ContextDocument;
  #navigation: Navigation | undefined;
  #prompt: OpenPrompt | undefined;
  readonly #downloads: Download[] = [];
  readonly #requests = new Map<string, RequestInFlight>();
  #closedReason: string | undefined;

  constructor(links: ContextLinks, origin: ContextOrigin, parent: BrowsingContext | undefined) {
    this.#links = links;
    this.id = origin.id;
    this.userContext = origin.userContext;
    this.originalOpener = origin.originalOpener;
    this.parent = parent;
    this.#document = new ContextDocument(origin.url);
    if (parent) parent.#children.set(this.id, this);
  }

  /** A tab: a top-level context. */
  get isTab(): boolean {
    return this.parent === undefined;
  }

  get top(): BrowsingContext {
    return this.parent ? this.parent.top : this;
  }

  get children(): BrowsingContext[] {
    return [...this.#children.values()];
  }

  get url(): string {
    return this.#document.url;
  }

  /** The document navigation in progress, until it loads, fails, or turns into a download. */
  get navigation(): Navigation | undefined {
    return this.#navigation;
  }

  /** The dialog open in this context, until it is closed. */
  get prompt(): OpenPrompt | undefined {
    return this.#prompt;
  }

  /** Downloads this context started, oldest first (the newest MAX_DOWNLOADS_KEPT). */
  get downloads(): readonly Download[] {
    return this.#downloads;
  }

  /** Requests of this context in flight, by BiDi request id. */
  get requests(): ReadonlyMap<string, RequestInFlight> {
    return this.#requests;
  }

  get closed(): boolean {
    return this.#closedReason !== undefined;
  }

  /** How many listeners are registered on this context (leak checks in tests). */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** The document's title; "" when it has none or cannot be read (mid-navigation, a PDF). */
  async title(): Promise<string> {
    for (let follow = 0; follow < TITLE_FOLLOW_LIMIT; follow++) {
      const doc = this.#document;
      if (doc.title === undefined && doc.reading === undefined && !this.closed) this.#refreshTitle();
      const read = doc.reading;
      if (read === undefined) return doc.title ?? "";
      await read;
      // A new document arrived while we waited: answer for it instead.
      if (this.#document === doc && doc.reading === undefined) return doc.title ?? "";
    }
    return this.#document.title ?? "";
  }

  on<K extends keyof BrowsingContextEvents>(
    event: K,
    listener: (...args: BrowsingContextEvents[K]) => void,
  ): () => void {
    if (this.closed) return () => {};
    return this.#listeners.on(event, listener);
  }

  /**
   * Resolves with the arguments of the next `event`, or undefined after `timeoutMs`. Rejects with
   * the Stop error when the signal fires, and with the gone error when the context is disposed
   * first (at once if it already is).
   */
  waitFor<K extends keyof BrowsingContextEvents>(
    event: K,
    options: WaitOptions,
  ): Promise<BrowsingContextEvents[K] | undefined> {
    const { signal } = options;
    if (this.closed) return Promise.reject(this.#goneError());
    if (signal?.aborted) return Promise.reject(stoppedError(options.what, signal));
    return new Promise((resolve, reject) => {
      const end = () => {
        clearTimeout(timer);
        remove();
        this.#waits.delete(gone);
        signal?.removeEventListener("abort", onAbort);
      };
      const gone = (error: Error) => {
        end();
        reject(error);
      };
      const onAbort = () => {
        end();
        reject(stoppedError(options.what, signal as AbortSignal));
      };
      const timer = setTimeout(() => {
        end();
        resolve(undefined);
      }, options.timeoutMs);
      const remove = this.#listeners.on(event, (...args) => {
        end();
        resolve(args);
      });
      this.#waits.add(gone);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Applies one event of this context (called by the tree only). */
  receive(event: ContextEvent): void {
    if (this.closed) return;
    switch (event.method) {
      case "browsingContext.navigationStarted": {
        const { navigation, url } = event.params;
        this.#navigation = { id: navigation ?? undefined, url, committed: false };
        this.#listeners.emit("navigation", this.#navigation);
        return;
      }
      case "browsingContext.navigationCommitted":
        this.#document = new ContextDocument(event.params.url);
        if (this.#navigation && this.#isCurrent(event.params.navigation)) this.#navigation.committed = true;
        return;
      case "browsingContext.navigationFailed":
        if (this.#isCurrent(event.params.navigation)) this.#navigation = undefined;
        return;
      case "browsingContext.fragmentNavigated":
        this.#document.url = event.params.url;
        return;
      case "browsingContext.historyUpdated":
      case "browsingContext.domContentLoaded":
        this.#document.url = event.params.url;
        this.#refreshTitle();
        return;
      case "browsingContext.load":
        this.#document.url = event.params.url;
        this.#refreshTitle();
        if (this.#isCurrent(event.params.navigation)) this.#navigation = undefined;
        this.#listeners.emit("load", event.params.url);
        return;
      case "browsingContext.userPromptOpened": {
        const { type, message, defaultValue, handler } = event.params;
        this.#prompt = { type, message, defaultValue, handler };
        this.#listeners.emit("prompt", this.#prompt);
        return;
      }
      case "browsingContext.userPromptClosed": {
        const prompt = this.#prompt;
        this.#prompt = undefined;
        if (prompt) this.#listeners.emit("promptClosed", prompt, event.params.accepted);
        return;
      }
      case "browsingContext.downloadWillBegin":
        this.#downloadBegan(event.params);
        return;
      case "browsingContext.downloadEnd":
        this.#downloadEnded(event.params);
        return;
      case "network.beforeRequestSent":
        this.#requestSent(event.params);
        return;
      case "network.responseCompleted":
      case "network.fetchError":
        this.#requestEnded(event.params.request.request);
        return;
      case "script.message":
        // The sandbox's popstate listener (context-documents.ts): history moved within the document.
        if (event.params.channel !== HISTORY_CHANNEL || event.params.data.type !== "string") return;
        this.#document.url = event.params.data.value;
        this.#refreshTitle();
        return;
      case "browsingContext.contextCreated":
      case "browsingContext.contextDestroyed":
        return; // the tree's own business: it creates and disposes contexts
    }
  }

  /**
   * Ends this context and everything on it (see the invariants). Idempotent; `reason` says why,
   * for frames' errors and the `closed` event.
   */
  dispose(reason: string): void {
    if (this.closed) return;
    this.#closedReason = reason;
    for (const child of this.#children.values())
      child.dispose(`its ${this.isTab ? "tab" : "parent frame"} is gone`);
    const error = this.#goneError();
    for (const gone of [...this.#waits]) gone(error);
    this.#listeners.emit("closed", reason);
    this.#listeners.clear();
    this.#requests.clear();
    this.#prompt = undefined;
    this.#navigation = undefined;
    if (this.parent) this.parent.#children.delete(this.id);
    this.#links.disposed(this, reason);
  }

  #goneError(): Error {
    return contextGoneError(this.id, this.isTab, this.#closedReason ?? "closed");
  }

  /**
   * Whether an event of `navigation` (its id) is about the navigation in progress: the same id,
   * or either id missing (Firefox sends none for some, such as the one a beforeunload prompt let
   * through), so such a navigation still ends at its load.
   */
  #isCurrent(navigation: string | null | undefined): boolean {
    const current = this.#navigation;
    return (
      current !== undefined && (current.id === undefined || navigation == null || current.id === navigation)
    );
  }

  #refreshTitle(): void {
    const { client, sandbox } = this.#links;
    this.#document.refreshTitle(() => readDocumentTitle(client, this.id, sandbox));
  }

  #downloadBegan(params: ContextEventParams<"browsingContext.downloadWillBegin">): void {
    const download: Download = {
      context: this.id,
      navigation: params.navigation ?? undefined,
      url: params.url,
      suggestedFilename: params.suggestedFilename,
      end: undefined,
    };
    this.#downloads.push(download);
    if (this.#downloads.length > MAX_DOWNLOADS_KEPT) this.#downloads.shift();
    // A link whose response is a download starts a navigation in Firefox 153, and no load follows.
    if (this.#isCurrent(params.navigation)) this.#navigation = undefined;
    this.#listeners.emit("download", download);
  }

  /** Matched by navigation id, which both events carry; by URL when Firefox sent none. */
  #downloadEnded(params: ContextEventParams<"browsingContext.downloadEnd">): void {
    const download = this.#downloads.find((candidate) =>
      params.navigation != null
        ? candidate.navigation === params.navigation
        : candidate.url === params.url && candidate.end === undefined,
    );
    if (!download || download.end) return;
    download.end = downloadEndOf(params);
    this.#listeners.emit("downloadEnd", download);
  }

  #requestSent(params: ContextEventParams<"network.beforeRequestSent">): void {
    const id = params.request.request;
    if (this.#requests.has(id)) return; // a redirect (or an auth retry) of a request we know
    const now = performance.now();
    for (const [other, request] of this.#requests)
      if (now - request.startedAt > REQUEST_FORGET_MS) this.#requests.delete(other);
    const initiatorType = (params.request as { initiatorType?: string | null }).initiatorType ?? undefined;
    const request: RequestInFlight = {
      id,
      url: params.request.url,
      method: params.request.method,
      initiatorType,
      startedAt: now,
    };
    this.#requests.set(id, request);
    this.#listeners.emit("request", request);
  }

  #requestEnded(id: string): void {
    const request = this.#requests.get(id);
    if (!request) return;
    this.#requests.delete(id);
    this.#listeners.emit("requestEnd", request);
  }
}

/** How a download ended, from its `downloadEnd` event. */
export function downloadEndOf(params: ContextEventParams<"browsingContext.downloadEnd">): DownloadEnd {
  return {
    status: params.status === "complete" ? "complete" : "canceled",
    filepath: ("filepath" in params ? params.filepath : undefined) ?? undefined,
  };
}

type ContextEventParams<E extends ContextEvent["method"]> = Extract<ContextEvent, { method: E }>["params"];
