/**
 * Follows navigations of a tab (or the frame acted in) while trusted input is pressed, from the
 * port's browsing-context model (no round trip). `navigationStarted` does not fire for fragments
 * or pushState, so only document navigations (a link, a form submit) count as "navigated". A link
 * whose response is a download also starts a navigation in Firefox 153, and no load follows: its
 * `downloadWillBegin` ends the wait and the navigation does not count (the page stays).
 *
 * A watch's listeners are registered on the tab's and the frame's BrowsingContext and removed by
 * `stop` (or with the context). When the tab closes, a wait on it ends with TabGoneError at once;
 * a frame that goes (its page navigated) only stops being watched.
 */

import { stoppedError } from "../port/stop-signal.js";
import type { BrowsingContext } from "./browsing-context.js";
import type { BrowsingContextTree } from "./browsing-context-tree.js";
import { TabGoneError, tabClosedMessage } from "./context-gone.js";

export interface NavigationWatch {
  stop(): void;
  /** A document navigation of the tab or frame started since the watch began. */
  started(): boolean;
  /** The navigation that started turned out to be a download: the document was never left. */
  becameDownload(): boolean;
  /** Resolves true once a document navigation has started, false after timeoutMs without one. */
  whenStarted(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /**
   * The loaded URL, or the started one if the load takes longer than timeoutMs. Rejects with the
   * Stop error when the signal fires first, with TabGoneError when the tab closes. Stops the watch.
   */
  loaded(timeoutMs: number, signal?: AbortSignal): Promise<string>;
}

/** One watch's state, fed by its listeners on the watched contexts. */
interface ActiveWatch {
  /** Firefox sends the navigation a beforeunload prompt let through without a `url`. */
  started: boolean;
  becameDownload: boolean;
  startedUrl: string | undefined;
  loadedUrl: string | undefined;
  onLoad: (() => void) | undefined;
  onStart: (() => void) | undefined;
  /** The tab closed while a wait was in progress. */
  onGone: (() => void) | undefined;
}

/** The watches of one port, over its browsing-context model. */
export class NavigationEvents {
  readonly #tree: BrowsingContextTree;

  constructor(tree: BrowsingContextTree) {
    this.#tree = tree;
  }

  /** Watches the tab (and the frame acted in) until `stop` or `loaded`. */
  watch(tabId: string, context: string): NavigationWatch {
    const state: ActiveWatch = {
      started: false,
      becameDownload: false,
      startedUrl: undefined,
      loadedUrl: undefined,
      onLoad: undefined,
      onStart: undefined,
      onGone: undefined,
    };
    const removers: (() => void)[] = [];
    const tab = this.#tree.get(tabId);
    const watched = [tab, context === tabId ? undefined : this.#tree.get(context)];
    for (const target of watched) if (target) removers.push(...follow(target, state));
    if (tab) removers.push(tab.on("closed", () => state.onGone?.()));
    const stop = () => {
      for (const remove of removers.splice(0)) remove();
    };
    const gone = () => new TabGoneError(tabClosedMessage(tabId));
    return {
      stop,
      started: () => state.started,
      becameDownload: () => state.becameDownload,
      whenStarted: async (timeoutMs, signal) => {
        if (state.started) return true;
        if (!tab || tab.closed) throw gone();
        await settleOn(state, "onStart", timeoutMs, signal, "waiting for the page to be left", gone);
        return state.started;
      },
      loaded: async (timeoutMs, signal) => {
        try {
          if (state.loadedUrl === undefined) {
            if (!tab || tab.closed) throw gone();
            await settleOn(state, "onLoad", timeoutMs, signal, "waiting for the page to load", gone);
          }
        } finally {
          stop();
        }
        return state.loadedUrl ?? state.startedUrl ?? "";
      },
    };
  }
}

/**
 * Waits until the watch's `slot` callback fires (resolves), `timeoutMs` passes (resolves: the
 * caller reads the state), the tab goes (rejects with `gone()`) or Stop fires (rejects with the
 * Stop error naming `doing`). Every path clears the timer, the callbacks and the abort listener.
 */
function settleOn(
  state: ActiveWatch,
  slot: "onStart" | "onLoad",
  timeoutMs: number,
  signal: AbortSignal | undefined,
  doing: string,
  gone: () => Error,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const end = () => {
      clearTimeout(timer);
      state[slot] = undefined;
      state.onGone = undefined;
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      end();
      reject(stoppedError(doing, signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      end();
      resolve();
    }, timeoutMs);
    state[slot] = () => {
      end();
      resolve();
    };
    state.onGone = () => {
      end();
      reject(gone());
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Feeds one watch from one context's events; returns the removers. */
function follow(context: BrowsingContext, state: ActiveWatch): (() => void)[] {
  return [
    context.on("navigation", (navigation) => {
      state.started = true;
      state.startedUrl = navigation.url || undefined;
      state.loadedUrl = undefined;
      state.onStart?.();
    }),
    context.on("load", (url) => {
      if (!state.started) return;
      state.loadedUrl = url;
      state.onLoad?.();
    }),
    context.on("download", () => {
      // A download with no navigation first (`<a download>`) also ends a wait for the start.
      const waiting = !state.started;
      state.started = false;
      state.becameDownload = true;
      if (waiting) state.onStart?.();
      else state.onLoad?.();
    }),
  ];
}

/**
 * Tabs being left after an accepted beforeunload prompt. Firefox opens that prompt after the
 * click that caused it has returned (and its effect was read), then starts the navigation once
 * it is answered: the next action would read the old document, or the new one before it has a
 * body. Until the tab's next `load` (bounded), an action waits for it.
 */
export class LeavingTabs {
  readonly #tree: BrowsingContextTree;
  /** Tabs being left, each with the remover of its listener for the load that ends it. */
  readonly #leaving = new WeakMap<BrowsingContext, () => void>();

  /** Follows the tree's beforeunload prompts from now on, until the tree is disposed. */
  constructor(tree: BrowsingContextTree) {
    this.#tree = tree;
    tree.on("prompt", (context, prompt) => {
      if (prompt.type !== "beforeunload" || this.#leaving.has(context)) return;
      this.#leaving.set(
        context,
        context.on("load", () => this.#settle(context)),
      );
    });
  }

  /**
   * Waits until the tab has loaded the page it is leaving for (at most timeoutMs). True when it
   * was being left, so the caller can say it navigated. Rejects with TabGoneError when the tab
   * closes first, with the Stop error when the signal fires.
   */
  async settled(tabId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const tab = this.#tree.get(tabId);
    if (!tab || !this.#leaving.has(tab)) return false;
    const what = "waiting for the page being left to load";
    // A prompt whose navigation never loads (dismissed, a download) must not hold every action.
    if (!(await tab.waitFor("load", { timeoutMs, signal, what }))) this.#settle(tab);
    return true;
  }

  #settle(context: BrowsingContext): void {
    this.#leaving.get(context)?.();
    this.#leaving.delete(context);
  }
}
