/**
 * Tabs as BiDi browsing contexts: top-level contexts are tabs, their descendants are frames.
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

/** Pause before opening a tab again after Firefox discarded the first try, ms. */
const CREATE_RETRY_DELAY_MS = 50;

export class TabGoneError extends Error {
  override readonly name = "TabGoneError";
}

export interface FrameInfo {
  context: string;
  url: string;
  /** Parent context; undefined for the tab itself. */
  parent: string | undefined;
  depth: number;
}

export class TabContexts {
  readonly #client: BidiClient;
  /** Top-level contexts in creation order (newest last). */
  #tabs: string[] = [];
  #active: string | undefined;
  /** Tabs this runner opened (closed again when the browser is not ours). */
  #created = new Set<string>();
  #removeListeners: (() => void)[] = [];
  /** The BiDi user context these tabs live in; undefined: every tab of the browser. */
  readonly #userContext: string | undefined;

  constructor(client: BidiClient, userContext?: string) {
    this.#client = client;
    this.#userContext = userContext;
  }

  /** Tabs of other user contexts (other sessions in the same Firefox) are not ours. */
  #inScope(info: { userContext?: string }): boolean {
    return this.#userContext === undefined || info.userContext === this.#userContext;
  }

  /** Learns the current tabs and follows contexts created and destroyed from now on. */
  async start(): Promise<void> {
    this.#removeListeners.push(
      this.#client.on("browsingContext.contextCreated", (info) => {
        if (!info.parent && this.#inScope(info) && !this.#tabs.includes(info.context))
          this.#tabs.push(info.context);
      }),
      this.#client.on("browsingContext.contextDestroyed", (info) => {
        if (info.parent) return;
        this.#tabs = this.#tabs.filter((id) => id !== info.context);
        if (this.#active === info.context) this.#active = this.#tabs.at(-1);
      }),
    );
    const tree = await this.#client.send("browsingContext.getTree", { maxDepth: 0 });
    for (const info of tree.contexts) {
      if (this.#inScope(info) && !this.#tabs.includes(info.context)) this.#tabs.push(info.context);
    }
    this.#active ??= this.#tabs.at(-1);
  }

  stop(): void {
    for (const remove of this.#removeListeners) remove();
    this.#removeListeners = [];
  }

  get activeId(): string | undefined {
    return this.#active;
  }

  has(tabId: string): boolean {
    return this.#tabs.includes(tabId);
  }

  ids(): string[] {
    return [...this.#tabs];
  }

  markActive(tabId: string): void {
    if (!this.#tabs.includes(tabId)) this.#tabs.push(tabId);
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
    this.#created.add(context);
    if (!this.#tabs.includes(context)) this.#tabs.push(context);
    if (!background) this.#active = context;
    return context;
  }

  /** Tabs opened through `create` that are still open. */
  createdIds(): string[] {
    return [...this.#created].filter((id) => this.#tabs.includes(id));
  }

  async close(tabId: string): Promise<void> {
    await this.#client.send("browsingContext.close", { context: tabId, promptUnload: false });
    this.#tabs = this.#tabs.filter((id) => id !== tabId);
    if (this.#active === tabId) this.#active = this.#tabs.at(-1);
  }

  /** The tab and every frame inside it, depth-first, tab first. Throws TabGoneError. */
  async frames(tabId: string): Promise<FrameInfo[]> {
    let tree: Bidi.BrowsingContext.GetTreeResult;
    try {
      tree = await this.#client.send("browsingContext.getTree", { root: tabId });
    } catch (error) {
      if ((error as { code?: unknown }).code === "no such frame") {
        throw new TabGoneError(`Tab ${tabId} is closed; list the tabs and pick another.`, { cause: error });
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
    if (out.length === 0) throw new TabGoneError(`Tab ${tabId} is closed; list the tabs and pick another.`);
    return out;
  }

  async url(tabId: string): Promise<string> {
    const [tab] = await this.frames(tabId);
    return tab!.url;
  }
}
