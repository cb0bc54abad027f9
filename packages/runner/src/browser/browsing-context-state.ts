/**
 * The types of the browsing-context model (browsing-context.ts, browsing-context-tree.ts): what
 * one BiDi browsing context is known to be doing, as Firefox reported it in events, and the
 * events the model's objects emit. Plain data: readers never send commands to learn these.
 */
import type { BidiEventFrame, BidiEventName, EventParamsOf } from "@webbrain/bidi";
import type { BrowsingContext } from "./browsing-context.js";

/**
 * The BiDi events the model is fed, subscribed to once per tree (browsing-context-tree.ts).
 * Firefox 153 has no `browsingContext.navigationAborted` (subscribing to it is refused).
 */
export const CONTEXT_EVENTS = [
  "browsingContext.contextCreated",
  "browsingContext.contextDestroyed",
  "browsingContext.navigationStarted",
  "browsingContext.navigationCommitted",
  "browsingContext.navigationFailed",
  "browsingContext.fragmentNavigated",
  "browsingContext.historyUpdated",
  "browsingContext.domContentLoaded",
  "browsingContext.load",
  "browsingContext.userPromptOpened",
  "browsingContext.userPromptClosed",
  "browsingContext.downloadWillBegin",
  "browsingContext.downloadEnd",
  "network.beforeRequestSent",
  "network.responseCompleted",
  "network.fetchError",
  "script.message",
] as const satisfies readonly BidiEventName[];

export type ContextEventName = (typeof CONTEXT_EVENTS)[number];

/** One event of CONTEXT_EVENTS with its typed params, as the tree hands it to a context. */
export type ContextEvent = {
  [E in ContextEventName]: { method: E; params: EventParamsOf<E> };
}[ContextEventName];

/**
 * Where a feature written against a BidiClient's events gets them from: the client itself (unit
 * tests feed one), or a tree's `bidiEvents`, which passes on only the events of its own contexts.
 */
export interface BidiEventSource {
  on<E extends BidiEventName>(
    event: E,
    handler: (params: EventParamsOf<E>, raw: BidiEventFrame) => void,
  ): () => void;
}

/** A document navigation in progress (fragments and history.pushState never start one). */
export interface Navigation {
  /** BiDi's navigation id; Firefox sends none for some (a navigation a beforeunload prompt let through). */
  readonly id: string | undefined;
  /** Where it goes; "" when Firefox did not say. */
  readonly url: string;
  /** The new document exists (`navigationCommitted`); it has not loaded yet. */
  committed: boolean;
}

/** A dialog open in a context (BiDi allows one at a time): alert, confirm, prompt, beforeunload. */
export interface OpenPrompt {
  readonly type: "alert" | "confirm" | "prompt" | "beforeunload";
  readonly message: string;
  readonly defaultValue: string | undefined;
  /** What Firefox's own prompt handler does with it ("ignore": it waits for an answer). */
  readonly handler: string;
}

export interface DownloadEnd {
  readonly status: "complete" | "canceled";
  /** Where the file landed; undefined when canceled. */
  readonly filepath: string | undefined;
}

/** A download a context started: begun at `downloadWillBegin`, `end` set at `downloadEnd`. */
export interface Download {
  /** The context it started in. */
  readonly context: string;
  /** BiDi's navigation id, which `downloadEnd` carries too. */
  readonly navigation: string | undefined;
  readonly url: string;
  readonly suggestedFilename: string;
  end: DownloadEnd | undefined;
}

/** A request Firefox reported sent and not yet completed or failed. */
export interface RequestInFlight {
  readonly id: string;
  readonly url: string;
  readonly method: string;
  /** "fetch", "xmlhttprequest", "iframe", ...; undefined for a document's own request. */
  readonly initiatorType: string | undefined;
  /** performance.now() when it was sent. */
  readonly startedAt: number;
}

/** What a BrowsingContext emits; listeners are removed when it is disposed. */
export interface BrowsingContextEvents {
  /** A document navigation started. */
  navigation: [navigation: Navigation];
  /** The document (or the one a navigation brought) fired its load event. */
  load: [url: string];
  prompt: [prompt: OpenPrompt];
  promptClosed: [prompt: OpenPrompt, accepted: boolean];
  download: [download: Download];
  downloadEnd: [download: Download];
  request: [request: RequestInFlight];
  requestEnd: [request: RequestInFlight];
  /** The context is gone: closed, its parent closed, or the tree disposed. The last event. */
  closed: [reason: string];
}

/** What a BrowsingContextTree emits about its contexts; listeners go with the tree. */
export interface BrowsingContextTreeEvents {
  contextCreated: [context: BrowsingContext];
  contextDestroyed: [context: BrowsingContext, reason: string];
  prompt: [context: BrowsingContext, prompt: OpenPrompt];
  download: [context: BrowsingContext, download: Download];
}
