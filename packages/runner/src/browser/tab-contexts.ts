/**
 * Tabs as BiDi browsing contexts: top-level contexts are tabs, their descendants are frames.
 * Which tabs exist comes from the port's BrowsingContextTree (browsing-context-tree.ts); this
 * module keeps what BiDi does not say: which tab is active, and which ones the runner opened.
 *
 * Invariants:
 * - `TabId` is the top-level context id, so a tab keeps its id across navigations.
 * - The "active" tab is the one the runner last created or activated (BiDi reports no focus
 *   state); when it closes, the newest remaining tab becomes active.
 * - Frame lookups always ask Firefox (`browsingContext.getTree`), never a cache, because
 *   frames come and go with every navigation.
 */
import type { BidiClient } from "@webbrain/bidi";
import type * as Bidi from "webdriver-bidi-protocol";
import type { BrowsingContextTree } from "./browsing-context-tree.js";
import { TabGoneError, tabClosedMessage } from "./context-gone.js";

export { TabGoneError } from "./context-gone.js";

/** Pause before opening a tab again after Firefox discarded the first try, ms. */
const CREATE_RETRY_DELAY_MS = 50;
/** BiDi's name of the user context every browser starts with. */
const DEFAULT_USER_CONTEXT = "default";

export interface FrameInfo {
  context: string;
  url: string;
  /** Parent context; undefined for the tab itself. */
  parent: string | undefined;
  depth: number;
}

export class TabContexts {
  readonly #client: BidiClient;
  readonly #tree: BrowsingContextTree;
  #active: string | undefined;
  /** Tabs this runner opened (closed again when the browser is not ours). */
  readonly #created = new Set<string>();
  /** The BiDi user context new tabs open in; undefined: the browser's default one. */
  readonly #userContext: string | undefined;

  constructor(client: BidiClient, tree: BrowsingContextTree, userContext?: string) {
    this.#client = client;
    this.#tree = tree;
    this.#userContext = userContext;
    tree.on("contextDestroyed", (context) => {
      if (!context.isTab) return;
      this.#created.delete(context.id);
      if (this.#active === context.id) this.#active = this.#tree.tabs().at(-1)?.id;
    });
  }

  /** Makes the newest tab active, once the tree knows the tabs that exist. */
  start(): void {
    this.#active ??= this.#tree.tabs().at(-1)?.id;
  }

  get activeId(): string | undefined {
    return this.#active;
  }

  has(tabId: string): boolean {
    return this.#tree.get(tabId)?.isTab === true;
  }

  ids(): string[] {
    return this.#tree.tabs().map((tab) => tab.id);
  }

  markActive(tabId: string): void {
    this.#active = tabId;
  }

  /**
   * Opens a tab (in front unless `background`) and returns its context id; in `userContext` if
   * given (a cookieless research tab), else in this port's.
   */
  async create(background: boolean, userContext?: string): Promise<string> {
    const inContext = userContext ?? this.#userContext;
    const params = {
      type: "tab" as const,
      background,
      ...(inContext ? { userContext: inContext } : {}),
    };
    let context: string;
    try {
      ({ context } = await this.#client.send("browsingContext.create", params));
    } catch (error) {
      // Firefox 153 sometimes answers `no such frame` (DiscardedBrowsingContextError) when
      // another tab of the window closes while this one opens (parallel sessions ending and
      // starting at once). We were given no id for it, so ask once more; a half-made tab, if
      // Firefox kept one, goes with its user context or the browser when the session ends.
      if ((error as { code?: unknown }).code !== "no such frame") throw error;
      await new Promise((resolve) => setTimeout(resolve, CREATE_RETRY_DELAY_MS));
      ({ context } = await this.#client.send("browsingContext.create", params));
    }
    this.#tree.adoptTab(context, inContext ?? DEFAULT_USER_CONTEXT);
    this.#created.add(context);
    if (!background) this.#active = context;
    return context;
  }

  /** Tabs opened through `create` that are still open. */
  createdIds(): string[] {
    return [...this.#created].filter((id) => this.has(id));
  }

  async close(tabId: string): Promise<void> {
    await this.#client.send("browsingContext.close", { context: tabId, promptUnload: false });
    this.#tree.forgetClosed(tabId);
  }

  /** The tab and every frame inside it, depth-first, tab first. Throws TabGoneError. */
  async frames(tabId: string): Promise<FrameInfo[]> {
    let tree: Bidi.BrowsingContext.GetTreeResult;
    try {
      tree = await this.#client.send("browsingContext.getTree", { root: tabId });
    } catch (error) {
      if ((error as { code?: unknown }).code === "no such frame") {
        throw new TabGoneError(tabClosedMessage(tabId), { cause: error });
      }
      throw error;
    }
    const out: FrameInfo[] = [];
    const walk = (infos: Bidi.BrowsingContext.InfoList, parent: string | undefined, depth: number) => {
      for (const info of infos) {
        out.push({ context: info.context, url: info.url, parent, depth });
        if (info.children) walk(info.children, info.context, depth + 1);
      }
    };
    walk(tree.contexts, undefined, 0);
    if (out.length === 0) throw new TabGoneError(tabClosedMessage(tabId));
    return out;
  }

  async url(tabId: string): Promise<string> {
    const [tab] = await this.frames(tabId);
    return tab!.url;
  }
}
