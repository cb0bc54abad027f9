/**
 * wait_for_stable as the runner runs it: the page layer's quiet DOM, and no fetch/XHR in flight
 * in the tab or its frames (seen by Firefox, which page script cannot). Requests that finish may
 * change the DOM again, so the DOM check runs again after them, all within the one timeout.
 *
 * Stop ends both halves at once: the page call is abandoned and the page told to end its wait
 * (page-caller.ts), and the network wait returns.
 */
import type { PageResult } from "@webbrain/agent";
import { WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS } from "@webbrain/page/protocol";
import type { NetworkActivity } from "../browser/network-activity.js";
import type { TabContexts } from "../browser/tab-contexts.js";
import type { PageCaller } from "../port/page-caller.js";
import { toPageResult } from "../port/page-result.js";
import { throwIfStopped } from "../port/stop-signal.js";

export async function waitForStable(
  caller: PageCaller,
  tabs: TabContexts,
  network: NetworkActivity,
  tabId: string,
  params: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<PageResult> {
  const call = signal ? { signal } : {};
  const requested = Number(params.timeout_ms ?? params.timeout ?? WAIT_DEFAULT_TIMEOUT_MS);
  const timeoutMs =
    Number.isFinite(requested) && requested >= 0 && requested <= WAIT_MAX_TIMEOUT_MS ? requested : undefined;
  // An out-of-range timeout: the page layer answers the typed error that says the range.
  if (timeoutMs === undefined)
    return toPageResult(await caller.call(tabId, tabId, "wait_for_stable", params, call));
  const { timeout: _alias, ...rest } = params;
  const started = performance.now();
  let networkWaitMs = 0;
  for (;;) {
    const left = Math.max(0, timeoutMs - (performance.now() - started));
    const page = toPageResult(
      await caller.call(tabId, tabId, "wait_for_stable", { ...rest, timeout_ms: Math.round(left) }, call),
    );
    if (!page.success) return page;
    const contexts = new Set((await tabs.frames(tabId)).map((frame) => frame.context));
    if (network.pending(contexts).length === 0) {
      return {
        ...page,
        waited_ms: Math.round(performance.now() - started),
        network_wait_ms: Math.round(networkWaitMs),
        requests_in_flight: 0,
      };
    }
    const networkStarted = performance.now();
    const idle = await network.waitForIdle(contexts, timeoutMs - (performance.now() - started), signal);
    throwIfStopped(signal, "wait_for_stable");
    networkWaitMs += performance.now() - networkStarted;
    if (!idle) {
      const pending = network.pending(contexts);
      return {
        success: false,
        code: "timeout",
        error: `wait_for_stable: the page still had ${pending.length} request(s) in flight after ${timeoutMs} ms (${pending
          .slice(0, 3)
          .map((request) => request.url)
          .join(", ")}); read the page as it is, or wait longer with a larger timeout_ms.`,
        requests_in_flight: pending.length,
      };
    }
  }
}
