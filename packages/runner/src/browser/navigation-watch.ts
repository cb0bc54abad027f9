/**
 * Follows navigations of a tab (or the frame acted in) while trusted input is pressed. BiDi
 * events cost no round trip; `navigationStarted` does not fire for fragments or pushState, so
 * only document navigations (a link, a form submit) count as "navigated". A link whose response
 * is a download also starts a navigation in Firefox 153, and no load follows: its
 * `downloadWillBegin` ends the wait and the navigation does not count (the page stays).
 */
import type { BidiClient } from "@webbrain/bidi";
import { stoppedError } from "../port/stop-signal.js";

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
   * Stop error when the signal fires first. Stops the watch.
   */
  loaded(timeoutMs: number, signal?: AbortSignal): Promise<string>;
}

/** One watch's state, fed by the shared listeners of `NavigationEvents`. */
interface ActiveWatch {
  ours(context: string): boolean;
  /** Firefox sends the navigation a beforeunload prompt let through without a `url`. */
  started: boolean;
  becameDownload: boolean;
  startedUrl: string | undefined;
  loadedUrl: string | undefined;
  onLoad: (() => void) | undefined;
  onStart: (() => void) | undefined;
}

/**
 * The navigation events of one client, listened to once and handed to the watches in progress,
 * so a press adds and removes no client listeners (it did two of each per click).
 */
export class NavigationEvents {
  readonly #client: BidiClient;
  readonly #active = new Set<ActiveWatch>();
  #removers: (() => void)[] | undefined;

  constructor(client: BidiClient) {
    this.#client = client;
  }

  /** Watches the tab (and the frame acted in) until `stop` or `loaded`. */
  watch(tabId: string, context: string): NavigationWatch {
    this.#listen();
    const state: ActiveWatch = {
      ours: (id) => id === context || id === tabId,
      started: false,
      becameDownload: false,
      startedUrl: undefined,
      loadedUrl: undefined,
      onLoad: undefined,
      onStart: undefined,
    };
    this.#active.add(state);
    const stop = () => {
      this.#active.delete(state);
    };
    return {
      stop,
      started: () => state.started,
      becameDownload: () => state.becameDownload,
      whenStarted: async (timeoutMs, signal) => {
        if (state.started) return true;
        await new Promise<void>((resolve, reject) => {
          const finish = () => {
            clearTimeout(timer);
            state.onStart = undefined;
            signal?.removeEventListener("abort", onAbort);
            resolve();
          };
          const onAbort = () => {
            clearTimeout(timer);
            state.onStart = undefined;
            reject(stoppedError("waiting for the page to be left", signal as AbortSignal));
          };
          const timer = setTimeout(finish, timeoutMs);
          state.onStart = finish;
          if (signal?.aborted) onAbort();
          else signal?.addEventListener("abort", onAbort, { once: true });
        });
        return state.started;
      },
      loaded: async (timeoutMs, signal) => {
        try {
          if (state.loadedUrl === undefined) {
            await new Promise<void>((resolve, reject) => {
              const finish = () => {
                clearTimeout(timer);
                signal?.removeEventListener("abort", onAbort);
                resolve();
              };
              const onAbort = () => {
                clearTimeout(timer);
                reject(stoppedError("waiting for the page to load", signal as AbortSignal));
              };
              const timer = setTimeout(finish, timeoutMs);
              state.onLoad = finish;
              if (signal?.aborted) onAbort();
              else signal?.addEventListener("abort", onAbort, { once: true });
            });
          }
        } finally {
          stop();
        }
        return state.loadedUrl ?? state.startedUrl ?? "";
      },
    };
  }

  /** Removes the client listeners (the port is disposed). */
  stop(): void {
    for (const remove of this.#removers ?? []) remove();
    this.#removers = undefined;
    this.#active.clear();
  }

  #listen(): void {
    this.#removers ??= [
      this.#client.on("browsingContext.navigationStarted", (info) => {
        for (const state of this.#active) {
          if (!state.ours(info.context)) continue;
          state.started = true;
          state.startedUrl = info.url || undefined;
          state.loadedUrl = undefined;
          state.onStart?.();
        }
      }),
      this.#client.on("browsingContext.load", (info) => {
        for (const state of this.#active) {
          if (!state.ours(info.context) || !state.started) continue;
          state.loadedUrl = info.url;
          state.onLoad?.();
        }
      }),
      // Needs a subscription to it, which the port holds for click side effects.
      this.#client.on("browsingContext.downloadWillBegin", (info) => {
        for (const state of this.#active) {
          if (!state.ours(info.context)) continue;
          // A download with no navigation first (`<a download>`) also ends a wait for the start.
          const waiting = !state.started;
          state.started = false;
          state.becameDownload = true;
          if (waiting) state.onStart?.();
          else state.onLoad?.();
        }
      }),
    ];
  }
}

/**
 * Tabs being left after an accepted beforeunload prompt. Firefox opens that prompt after the
 * click that caused it has returned (and its effect was read), then starts the navigation once
 * it is answered: the next action would read the old document, or the new one before it has a
 * body. Until the tab's next `load` (bounded), an action waits for it.
 */
export class LeavingTabs {
  readonly #client: BidiClient;
  readonly #leaving = new Map<string, { waiters: (() => void)[] }>();
  #removers: (() => void)[] | undefined;

  constructor(client: BidiClient) {
    this.#client = client;
  }

  start(): void {
    this.#removers ??= [
      this.#client.on("browsingContext.userPromptOpened", (info) => {
        if (info.type === "beforeunload" && !this.#leaving.has(info.context))
          this.#leaving.set(info.context, { waiters: [] });
      }),
      this.#client.on("browsingContext.load", (info) => this.#settle(info.context)),
    ];
  }

  stop(): void {
    for (const remove of this.#removers ?? []) remove();
    this.#removers = undefined;
    for (const context of [...this.#leaving.keys()]) this.#settle(context);
  }

  /**
   * Waits until the tab has loaded the page it is leaving for (at most timeoutMs). True when it
   * was being left, so the caller can say it navigated.
   */
  async settled(tabId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const entry = this.#leaving.get(tabId);
    if (!entry) return false;
    await new Promise<void>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        clearTimeout(timer);
        reject(stoppedError("waiting for the page being left to load", signal as AbortSignal));
      };
      // A prompt whose navigation never loads (dismissed, a download) must not hold every action.
      const timer = setTimeout(() => {
        this.#settle(tabId);
        finish();
      }, timeoutMs);
      entry.waiters.push(finish);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
    return true;
  }

  #settle(context: string): void {
    const entry = this.#leaving.get(context);
    if (!entry) return;
    this.#leaving.delete(context);
    for (const wake of entry.waiters) wake();
  }
}
