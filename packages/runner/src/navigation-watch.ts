/**
 * Follows navigations of a tab (or the frame acted in) while trusted input is pressed. BiDi
 * events cost no round trip; `navigationStarted` does not fire for fragments or pushState, so
 * only document navigations (a link, a form submit) count as "navigated".
 */
import type { BidiClient } from "@webbrain/bidi";
import { stoppedError } from "./stop-signal.js";

export interface NavigationWatch {
  stop(): void;
  /** A document navigation of the tab or frame started since the watch began. */
  started(): boolean;
  /**
   * The loaded URL, or the started one if the load takes longer than timeoutMs. Rejects with the
   * Stop error when the signal fires first. Stops the watch.
   */
  loaded(timeoutMs: number, signal?: AbortSignal): Promise<string>;
}

/** One watch's state, fed by the shared listeners of `NavigationEvents`. */
interface ActiveWatch {
  ours(context: string): boolean;
  startedUrl: string | undefined;
  loadedUrl: string | undefined;
  onLoad: (() => void) | undefined;
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
      startedUrl: undefined,
      loadedUrl: undefined,
      onLoad: undefined,
    };
    this.#active.add(state);
    const stop = () => {
      this.#active.delete(state);
    };
    return {
      stop,
      started: () => state.startedUrl !== undefined,
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
          state.startedUrl = info.url;
          state.loadedUrl = undefined;
        }
      }),
      this.#client.on("browsingContext.load", (info) => {
        for (const state of this.#active) {
          if (!state.ours(info.context) || state.startedUrl === undefined) continue;
          state.loadedUrl = info.url;
          state.onLoad?.();
        }
      }),
    ];
  }
}
