/**
 * The URL and title of a browsing context's document, kept from BiDi events so reading them costs
 * no round trip (as puppeteer's bidi/core BrowsingContext keeps its url).
 *
 * URL (browsing-context.ts feeds it): `contextCreated`, then `navigationCommitted` (a new
 * document), `fragmentNavigated`, `historyUpdated` (pushState / replaceState), `domContentLoaded`
 * and `load` (each carries the document's URL). Firefox 153 has been seen to send no event when
 * history moves within one document (back from `#part`, or to a pushState entry), so a preload
 * script in the sandbox also reports `popstate` through a `script.message` channel. Firefox 153
 * sends no event for a title, so the title is read once per document with one sandbox
 * `script.evaluate`, in the background when the document's DOM is parsed, again at `load` and
 * after a history change (single-page apps retitle as they route): never on an action's path. A
 * read for a document since replaced changes nothing.
 *
 * Invariants:
 * - `url(context)` answers from memory; undefined only for a context the port does not follow.
 * - `title(context)` answers from memory, or waits for the read in flight; it sends a command
 *   only for a document whose title was never read (one that existed before the tree started).
 */
import type { BidiClient } from "@webbrain/bidi";
import type { BrowsingContextTree } from "./browsing-context-tree.js";

/** The channel the sandbox's popstate listener reports a same-document traversal on. */
export const HISTORY_CHANNEL = "webbrain-history";
/** Runs in the sandbox of every new document: page scripts cannot see or stop it. */
export const HISTORY_LISTENER =
  '(report) => { window.addEventListener("popstate", () => report(location.href)); }';

/** One document of a context: replaced (a new object) by every new document. */
export class ContextDocument {
  url: string;
  #title: string | undefined;
  /** The newest title read in flight. */
  #read: Promise<void> | undefined;
  /** Reads started / the newest one applied, so a slower older read never overwrites. */
  #reads = 0;
  #applied = 0;

  constructor(url: string) {
    this.url = url;
  }

  /** The title as last read; undefined before the first read ends. */
  get title(): string | undefined {
    return this.#title;
  }

  /** The newest read in flight, if any. */
  get reading(): Promise<void> | undefined {
    return this.#read;
  }

  /** Reads the title in the background with `read`; the newest read wins. */
  refreshTitle(read: () => Promise<string>): void {
    const seq = ++this.#reads;
    const done = read()
      .catch(() => "") // mid-navigation, a closed context, a document without script: no title
      .then((title) => {
        if (seq > this.#applied) {
          this.#applied = seq;
          this.#title = title;
        }
        if (this.#read === done) this.#read = undefined;
      });
    this.#read = done;
  }
}

/** Reads a document's title in the sandbox, "" when it cannot. */
export async function readDocumentTitle(
  client: BidiClient,
  context: string,
  sandbox: string,
): Promise<string> {
  const result = await client.send(
    "script.evaluate",
    {
      expression: "document.title",
      target: { context, sandbox },
      awaitPromise: false,
      resultOwnership: "none",
    },
    { captureStack: false },
  );
  return result.type === "success" && result.result.type === "string" ? result.result.value : "";
}

/** The port's reader of URLs and titles by context id (the model keeps them). */
export class ContextDocuments {
  readonly #tree: BrowsingContextTree;

  constructor(tree: BrowsingContextTree) {
    this.#tree = tree;
  }

  has(context: string): boolean {
    return this.#tree.has(context);
  }

  url(context: string): string | undefined {
    return this.#tree.get(context)?.url;
  }

  /** The document's title; "" when it has none or cannot be read (mid-navigation, a PDF). */
  async title(context: string): Promise<string> {
    return (await this.#tree.get(context)?.title()) ?? "";
  }
}
