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

export function watchNavigation(client: BidiClient, tabId: string, context: string): NavigationWatch {
  const ours = (id: string) => id === context || id === tabId;
  let startedUrl: string | undefined;
  let loadedUrl: string | undefined;
  let onLoad: (() => void) | undefined;
  const removers = [
    client.on("browsingContext.navigationStarted", (info) => {
      if (!ours(info.context)) return;
      startedUrl = info.url;
      loadedUrl = undefined;
    }),
    client.on("browsingContext.load", (info) => {
      if (!ours(info.context) || startedUrl === undefined) return;
      loadedUrl = info.url;
      onLoad?.();
    }),
  ];
  const stop = () => {
    for (const remove of removers) remove();
  };
  return {
    stop,
    started: () => startedUrl !== undefined,
    loaded: async (timeoutMs, signal) => {
      try {
        if (loadedUrl === undefined) {
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
            onLoad = finish;
            if (signal?.aborted) onAbort();
            else signal?.addEventListener("abort", onAbort, { once: true });
          });
        }
      } finally {
        stop();
      }
      return loadedUrl ?? startedUrl ?? "";
    },
  };
}
