/**
 * The URL and title of every browsing context, kept from BiDi events so reading them costs no
 * round trip (as puppeteer's bidi/core BrowsingContext keeps its url).
 *
 * URL: `contextCreated`, then `navigationCommitted` (a new document), `fragmentNavigated`,
 * `historyUpdated` (pushState / replaceState), `domContentLoaded` and `load` (each carries the
 * document's URL). Firefox 153 sends no event when history moves within one document (back from
 * `#part`, or to a pushState entry), so a preload script in the sandbox reports `popstate`
 * through a `script.message` channel. Firefox 153 sends no event for a title, so the title is read once per
 * document with one sandbox `script.evaluate`, in the background when the document's DOM is
 * parsed, again at `load` and after `historyUpdated` (single-page apps retitle as they route):
 * never on an action's path. A read for a document since replaced changes nothing.
 *
 * Invariants:
 * - `url(context)` answers from memory; undefined only for a context this process never heard of.
 * - `title(context)` answers from memory, or waits for the read in flight; it sends a command
 *   only for a document whose title was never read (one that existed before `start`).
 */
import type { BidiClient } from "@webbrain/bidi";
import type * as Bidi from "webdriver-bidi-protocol";

/** The events that keep URLs current (the caller subscribes to them). */
export const DOCUMENT_EVENTS = [
  "script.message",
  "browsingContext.contextCreated",
  "browsingContext.contextDestroyed",
  "browsingContext.navigationCommitted",
  "browsingContext.fragmentNavigated",
  "browsingContext.historyUpdated",
  "browsingContext.domContentLoaded",
  "browsingContext.load",
] as const;

/** One document of a context: replaced (a new object) by every new document. */
interface ContextDocument {
  url: string;
  title: string | undefined;
  /** The newest title read in flight. */
  titleRead: Promise<void> | undefined;
  /** Reads started / the newest one applied, so a slower older read never overwrites. */
  reads: number;
  applied: number;
}

/** The channel the sandbox's popstate listener reports a same-document traversal on. */
const HISTORY_CHANNEL = "webbrain-history";
/** Runs in the sandbox of every new document: page scripts cannot see or stop it. */
const HISTORY_LISTENER = '(report) => { window.addEventListener("popstate", () => report(location.href)); }';

/** How many times `title` follows a context to a newer document while waiting. */
const TITLE_FOLLOW_LIMIT = 3;

export class ContextDocuments {
  readonly #client: BidiClient;
  readonly #sandbox: string;
  readonly #contexts = new Map<string, ContextDocument>();
  #removers: (() => void)[] = [];

  constructor(client: BidiClient, sandbox: string) {
    this.#client = client;
    this.#sandbox = sandbox;
  }

  /**
   * Listens for the events (subscribing to them is the caller's), installs the popstate
   * listener for new documents and learns the contexts that exist.
   */
  async start(): Promise<void> {
    const c = this.#client;
    this.#removers.push(
      c.on("script.message", (message) => {
        if (message.channel !== HISTORY_CHANNEL || message.data.type !== "string") return;
        const context = message.source.context;
        if (context === undefined) return;
        this.#setUrl(context, message.data.value);
        this.#readTitle(context);
      }),
      c.on("browsingContext.contextCreated", (info) => this.#newDocument(info.context, info.url)),
      c.on("browsingContext.contextDestroyed", (info) => this.#forget(info)),
      c.on("browsingContext.navigationCommitted", (info) => this.#newDocument(info.context, info.url)),
      c.on("browsingContext.fragmentNavigated", (info) => this.#setUrl(info.context, info.url)),
      c.on("browsingContext.historyUpdated", (info) => {
        this.#setUrl(info.context, info.url);
        this.#readTitle(info.context);
      }),
      c.on("browsingContext.domContentLoaded", (info) => {
        this.#setUrl(info.context, info.url);
        this.#readTitle(info.context);
      }),
      c.on("browsingContext.load", (info) => {
        this.#setUrl(info.context, info.url);
        this.#readTitle(info.context);
      }),
    );
    await c.send("script.addPreloadScript", {
      functionDeclaration: HISTORY_LISTENER,
      arguments: [{ type: "channel", value: { channel: HISTORY_CHANNEL } }],
      sandbox: this.#sandbox,
    });
    const tree = await c.send("browsingContext.getTree", {});
    const walk = (infos: Bidi.BrowsingContext.InfoList) => {
      for (const info of infos) {
        if (!this.#contexts.has(info.context)) this.#newDocument(info.context, info.url);
        if (info.children) walk(info.children);
      }
    };
    walk(tree.contexts);
  }

  stop(): void {
    for (const remove of this.#removers) remove();
    this.#removers = [];
  }

  has(context: string): boolean {
    return this.#contexts.has(context);
  }

  url(context: string): string | undefined {
    return this.#contexts.get(context)?.url;
  }

  /** The document's title; "" when it has none or cannot be read (mid-navigation, a PDF). */
  async title(context: string): Promise<string> {
    for (let follow = 0; follow < TITLE_FOLLOW_LIMIT; follow++) {
      const doc = this.#contexts.get(context);
      if (!doc) return "";
      if (doc.title === undefined && doc.titleRead === undefined) this.#readTitle(context);
      const read = doc.titleRead;
      if (read === undefined) return doc.title ?? "";
      await read;
      // A new document arrived while we waited: answer for it instead.
      if (this.#contexts.get(context) === doc && doc.titleRead === undefined) return doc.title ?? "";
    }
    return this.#contexts.get(context)?.title ?? "";
  }

  #newDocument(context: string, url: string): void {
    this.#contexts.set(context, { url, title: undefined, titleRead: undefined, reads: 0, applied: 0 });
  }

  #setUrl(context: string, url: string): void {
    const doc = this.#contexts.get(context);
    if (doc) doc.url = url;
    else this.#newDocument(context, url);
  }

  #forget(info: Bidi.BrowsingContext.Info): void {
    this.#contexts.delete(info.context);
    for (const child of info.children ?? []) this.#forget(child);
  }

  /** Reads the title in the background; the newest read of the newest document wins. */
  #readTitle(context: string): void {
    const doc = this.#contexts.get(context);
    if (!doc) return;
    const seq = ++doc.reads;
    const read = this.#client
      .send(
        "script.evaluate",
        {
          expression: "document.title",
          target: { context, sandbox: this.#sandbox },
          awaitPromise: false,
          resultOwnership: "none",
        },
        { captureStack: false },
      )
      .then(
        (result) => (result.type === "success" && result.result.type === "string" ? result.result.value : ""),
        () => "", // mid-navigation, a closed context, a document without script: no title
      )
      .then((title) => {
        // A read for a document since replaced changes nothing (`doc` is no longer in the map).
        if (seq > doc.applied) {
          doc.applied = seq;
          doc.title = title;
        }
        if (doc.titleRead === read) doc.titleRead = undefined;
      });
    doc.titleRead = read;
  }
}
