/**
 * wait_for_stable as the runner runs it: the agent's composition (`waitForStablePage`: the page
 * layer's quiet DOM, then no fetch/XHR in flight, within one timeout) over the tab's top document
 * and the requests Firefox sees in the tab and all its frames (which page script cannot).
 *
 * Stop ends both halves at once: the page call is abandoned and the page told to end its wait
 * (page-caller.ts), and the network wait returns with the runner's Stop error.
 */
import { type PageResult, waitForStablePage } from "@webbrain/agent";
import type { NetworkActivity } from "../browser/network-activity.js";
import type { TabContexts } from "../browser/tab-contexts.js";
import type { PageCaller } from "../port/page-caller.js";
import { toPageResult } from "../port/page-result.js";
import { stoppedError } from "../port/stop-signal.js";

export function waitForStable(
  caller: PageCaller,
  tabs: TabContexts,
  network: NetworkActivity,
  tabId: string,
  params: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<PageResult> {
  const call = signal ? { signal } : {};
  return waitForStablePage(
    {
      pageWait: async (pageParams) =>
        toPageResult(await caller.call(tabId, tabId, "wait_for_stable", pageParams, call)),
      requests: network,
      owners: async () => new Set((await tabs.frames(tabId)).map((frame) => frame.context)),
      stopError: (stopped) => stoppedError("wait_for_stable", stopped),
    },
    params,
    signal,
  );
}
