/**
 * BrowsingContextTree: the browsing contexts one port follows, one BrowsingContext per BiDi
 * context, fed by the port's one subscription to CONTEXT_EVENTS. Features of the runner (tabs,
 * documents, dialogs, navigations, downloads, network waits, the API observer, recordings) read
 * this model and listen to its objects instead of subscribing to the BiDi client themselves.
 *
 * Layering, as in puppeteer-core's `bidi/core`: BidiClient (wire) -> BrowsingContextTree (which
 * contexts are ours, routing) -> BrowsingContext (one context's state and events) -> features.
 *
 * Invariants:
 * - Scope: with a user context (an isolated session, isolated-sessions.ts) the tree follows only
 *   tabs of that user context (and of any `includeUserContext` added, such as research_url's
 *   cookieless one), and their frames; without one, every tab of the browser. Many trees share
 *   one client: each sees only its own contexts, and `bidiEvents` passes on only their events.
 * - One `session.subscribe` per tree, one client listener per event; `dispose` removes the
 *   listeners at once, disposes every context (their waits end with their gone error, their
 *   listeners go), and unsubscribes by the subscription's id, so another tree's subscription on
 *   the same client is untouched. `dispose` never throws, and resolves when Firefox has answered.
 * - A context's state is updated before anyone hears of the event: model listeners first (from
 *   inside the context), then `bidiEvents`.
 */
import type { BidiClient, BidiEventFrame, BidiEventName, EventParamsOf, Subscription } from "@webbrain/bidi";
import type * as Bidi from "webdriver-bidi-protocol";
import { BrowsingContext, type ContextLinks, downloadEndOf } from "./browsing-context.js";
import {
  type BidiEventSource,
  type BrowsingContextTreeEvents,
  CONTEXT_EVENTS,
  type ContextEvent,
  type ContextEventName,
  type Download,
} from "./browsing-context-state.js";
import { HISTORY_CHANNEL, HISTORY_LISTENER } from "./context-documents.js";
import { EventListeners } from "./event-listeners.js";

/** Downloads of closed contexts whose end is still awaited (a click that downloads, then closes its tab). */
const MAX_ORPHAN_DOWNLOADS = 50;

export interface BrowsingContextTreeOptions {
  /** Follow only the tabs of this BiDi user context; default: every tab of the browser. */
  userContext?: string | undefined;
  /** The sandbox the history listener runs and titles are read in (the page script's). */
  sandbox: string;
}

type RawEvents = { [E in ContextEventName]: [params: EventParamsOf<E>, raw: BidiEventFrame] };

/**
 * The BiDi events of a tree's contexts, in the client's shape, for features written against a
 * BidiClient's events (NetworkActivity, BidiApiObserver: their tests feed a client directly).
 */
class ScopedBidiEvents implements BidiEventSource {
  readonly #listeners = new EventListeners<RawEvents>();

  on<E extends BidiEventName>(
    event: E,
    handler: (params: EventParamsOf<E>, raw: BidiEventFrame) => void,
  ): () => void {
    // Only CONTEXT_EVENTS ever arrive; a listener for another event is kept and never called.
    return this.#listeners.on(event as ContextEventName, handler as never);
  }

  emit(event: ContextEvent, raw: BidiEventFrame): void {
    this.#listeners.emit(event.method, event.params as never, raw);
  }

  get size(): number {
    return this.#listeners.size;
  }

  clear(): void {
    this.#listeners.clear();
  }
}

export class BrowsingContextTree {
  readonly #bidiEvents = new ScopedBidiEvents();
  readonly #client: BidiClient;
  readonly #sandbox: string;
  readonly #links: ContextLinks;
  /** User contexts whose tabs are ours; undefined: every tab of the browser. */
  readonly #scope: Set<string> | undefined;
  /** Every context followed, tabs in the order they became known (newest last). */
  readonly #contexts = new Map<string, BrowsingContext>();
  readonly #listeners = new EventListeners<BrowsingContextTreeEvents>();
  /** Unfinished downloads of disposed contexts, by navigation id. */
  readonly #orphanDownloads = new Map<string, Download>();
  readonly #removers: (() => void)[] = [];
  #subscription: Subscription | undefined;
  #preloadScript: string | undefined;
  #disposed = false;
  #disposal: Promise<void> | undefined;

  constructor(client: BidiClient, options: BrowsingContextTreeOptions) {
    this.#client = client;
    this.#sandbox = options.sandbox;
    this.#scope = options.userContext === undefined ? undefined : new Set([options.userContext]);
    this.#links = {
      client,
      sandbox: options.sandbox,
      disposed: (context, reason) => this.#forget(context, reason),
    };
    // Listening starts now, so a feature built on the tree hears every event after `start`'s
    // subscription, even those that arrive in the same read as its answer.
    for (const method of CONTEXT_EVENTS) {
      this.#removers.push(
        client.on(method, (params, raw) => this.#dispatch({ method, params } as ContextEvent, raw)),
      );
    }
  }

  /** Subscribes, installs the history listener for new documents and learns the contexts that exist. */
  async start(): Promise<void> {
    const subscription = await this.#client.subscribe([...CONTEXT_EVENTS]);
    this.#subscription = subscription;
    const { script } = await this.#client.send("script.addPreloadScript", {
      functionDeclaration: HISTORY_LISTENER,
      arguments: [{ type: "channel", value: { channel: HISTORY_CHANNEL } }],
      sandbox: this.#sandbox,
    });
    this.#preloadScript = script;
    if (this.#disposed) {
      // Disposed while starting: what was added after the disposal ran is removed here.
      await this.#release(subscription, script);
      return;
    }
    const tree = await this.#client.send("browsingContext.getTree", {});
    this.#learn(tree.contexts, undefined);
  }

  /** The BiDi events of this tree's contexts, in the client's shape (see ScopedBidiEvents). */
  get bidiEvents(): BidiEventSource {
    return this.#bidiEvents;
  }

  get(id: string): BrowsingContext | undefined {
    return this.#contexts.get(id);
  }

  has(id: string): boolean {
    return this.#contexts.has(id);
  }

  /** The top-level contexts, in the order they became known (newest last). */
  tabs(): BrowsingContext[] {
    return [...this.#contexts.values()].filter((context) => context.isTab);
  }

  on<K extends keyof BrowsingContextTreeEvents>(
    event: K,
    listener: (...args: BrowsingContextTreeEvents[K]) => void,
  ): () => void {
    if (this.#disposed) return () => {};
    return this.#listeners.on(event, listener);
  }

  /** How many listeners are registered on the tree and its `bidiEvents` (leak checks in tests). */
  get listenerCount(): number {
    return this.#listeners.size + this.#bidiEvents.size;
  }

  /**
   * Follows the tabs of another user context too, until the returned function is called (a
   * research tab in a cookieless user context of its own). Call before opening the tab, so its
   * `contextCreated` is taken.
   */
  includeUserContext(userContext: string): () => void {
    const scope = this.#scope;
    if (!scope || scope.has(userContext)) return () => {};
    scope.add(userContext);
    return () => scope.delete(userContext);
  }

  /**
   * The tab `browsingContext.create` answered with: a tab the port opened is its own, whatever
   * its user context. Its `contextCreated` arrives before that answer on Firefox 153; when it was
   * not taken (out of scope) or has not come, the tab is followed from here (a blank document).
   */
  adoptTab(id: string, userContext: string): BrowsingContext {
    const known = this.#contexts.get(id);
    if (known) return known;
    const info = {
      context: id,
      url: "about:blank",
      userContext,
      parent: null,
      children: null,
      originalOpener: null,
      clientWindow: "",
    };
    return this.#create(info, undefined, true) as BrowsingContext;
  }

  /** A tab `browsingContext.close` closed: gone now, whether or not its event has come. */
  forgetClosed(id: string): void {
    this.#contexts.get(id)?.dispose("closed");
  }

  /**
   * Ends the model: client listeners removed, every context disposed, listeners dropped, the
   * subscription and the history listener removed from Firefox. Idempotent; never rejects.
   */
  dispose(): Promise<void> {
    if (this.#disposal) return this.#disposal;
    this.#disposed = true;
    for (const remove of this.#removers.splice(0)) remove();
    for (const tab of this.tabs()) tab.dispose("the port stopped following this browser");
    this.#listeners.clear();
    this.#bidiEvents.clear();
    this.#orphanDownloads.clear();
    this.#disposal = this.#release(this.#subscription, this.#preloadScript);
    return this.#disposal;
  }

  async #release(subscription: Subscription | undefined, script: string | undefined): Promise<void> {
    if (this.#client.closed) return;
    await Promise.all([
      // Only by id: unsubscribing by event names would end other trees' interest in them too.
      subscription?.id ? subscription.unsubscribe() : undefined,
      script ? this.#client.send("script.removePreloadScript", { script }) : undefined,
    ]).catch(() => {}); // the connection is closing: Firefox forgets both with the session
  }

  #inScope(userContext: string): boolean {
    return this.#scope === undefined || this.#scope.has(userContext);
  }

  #learn(infos: Bidi.BrowsingContext.InfoList, parent: BrowsingContext | undefined): void {
    for (const info of infos) {
      const context = this.#contexts.get(info.context) ?? this.#create(info, parent);
      if (context && info.children) this.#learn(info.children, context);
    }
  }

  /**
   * A new context, if it is ours: a tab of a user context in scope (or `adopted`), or a frame of
   * a context we follow.
   */
  #create(
    info: Bidi.BrowsingContext.Info,
    parent = info.parent ? this.#contexts.get(info.parent) : undefined,
    adopted = false,
  ): BrowsingContext | undefined {
    if (info.parent ? !parent : !adopted && !this.#inScope(info.userContext)) return undefined;
    const context = new BrowsingContext(
      this.#links,
      {
        id: info.context,
        url: info.url,
        userContext: info.userContext,
        originalOpener: info.originalOpener ?? undefined,
      },
      parent,
    );
    this.#contexts.set(context.id, context);
    // Passed up for features that follow every context; these listeners go with the context.
    context.on("prompt", (prompt) => this.#listeners.emit("prompt", context, prompt));
    context.on("download", (download) => this.#listeners.emit("download", context, download));
    this.#listeners.emit("contextCreated", context);
    return context;
  }

  #forget(context: BrowsingContext, reason: string): void {
    this.#contexts.delete(context.id);
    for (const download of context.downloads) {
      if (download.end || download.navigation === undefined) continue;
      this.#orphanDownloads.set(download.navigation, download);
      if (this.#orphanDownloads.size > MAX_ORPHAN_DOWNLOADS)
        this.#orphanDownloads.delete(this.#orphanDownloads.keys().next().value as string);
    }
    this.#listeners.emit("contextDestroyed", context, reason);
  }

  #dispatch(event: ContextEvent, raw: BidiEventFrame): void {
    if (this.#disposed) return;
    switch (event.method) {
      case "browsingContext.contextCreated":
        if (this.#contexts.has(event.params.context) || !this.#create(event.params)) return;
        break;
      case "browsingContext.contextDestroyed": {
        const context = this.#contexts.get(event.params.context);
        if (!context) return;
        context.dispose("closed");
        break;
      }
      case "browsingContext.downloadEnd": {
        const context = this.#contexts.get(event.params.context);
        if (context) context.receive(event);
        else if (!this.#endOrphan(event.params)) return;
        break;
      }
      default: {
        const context = this.#contexts.get(contextOf(event) ?? "");
        if (!context) return;
        context.receive(event);
      }
    }
    this.#bidiEvents.emit(event, raw);
  }

  /** The end of a download whose context is gone; false when it is none of ours. */
  #endOrphan(params: EventParamsOf<"browsingContext.downloadEnd">): boolean {
    const download = params.navigation == null ? undefined : this.#orphanDownloads.get(params.navigation);
    if (!download) return false;
    this.#orphanDownloads.delete(params.navigation as string);
    download.end = downloadEndOf(params);
    return true;
  }
}

/** The context an event is about; undefined for one of no context (a service worker's request). */
function contextOf(event: ContextEvent): string | undefined {
  switch (event.method) {
    case "script.message":
      return event.params.source.context ?? undefined;
    case "network.beforeRequestSent":
    case "network.responseCompleted":
    case "network.fetchError":
      return event.params.context ?? undefined;
    default:
      return event.params.context;
  }
}
