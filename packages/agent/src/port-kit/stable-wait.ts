/**
 * `wait_for_stable` as both ports run it: the page layer's quiet DOM, then no fetch/XHR in flight
 * in the tab (seen by the browser, which page script cannot: `InFlightRequests`). Requests that
 * finish may change the DOM again, so the DOM check runs again after them, all within the one
 * timeout.
 *
 * Invariants:
 * - The whole wait is bounded by one timeout (`timeout_ms`, alias `timeout`, default and bounds
 *   those of the page layer); each round gives the page layer what is left of it.
 * - An out-of-range timeout goes to the page layer as it was asked, which answers the typed error
 *   that says the range.
 * - Stop: the page wait ends as the port ends any page call; the network wait returns at once and
 *   the port's own Stop error (`stopError`) is thrown.
 */
import { WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS } from "@webbrain/protocol";
import type { PageResult } from "../tools/browser-port.js";
import type { InFlightRequests } from "./in-flight-requests.js";

/** How many URLs of the requests still in flight a timeout names. */
const URLS_NAMED_ON_TIMEOUT = 3;

export interface StableWaitDeps<Owner> {
  /** The page layer's `wait_for_stable` in the tab's top document, with these params. */
  pageWait(params: Record<string, unknown>): Promise<PageResult>;
  requests: InFlightRequests<Owner>;
  /** Whose requests count (the tab; or the tab and its frames); asked each round, as frames come and go. */
  owners(): Promise<ReadonlySet<Owner>>;
  /** The error this port rejects with on Stop. */
  stopError(signal: AbortSignal): unknown;
  /** Monotonic clock, ms (default `performance.now`). */
  now?: () => number;
}

/** Waits for a quiet DOM and no requests in flight; `waited_ms`, `network_wait_ms` and `requests_in_flight` say how it went. */
export async function waitForStablePage<Owner>(
  deps: StableWaitDeps<Owner>,
  params: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<PageResult> {
  const now = deps.now ?? (() => performance.now());
  const requested = Number(params.timeout_ms ?? params.timeout ?? WAIT_DEFAULT_TIMEOUT_MS);
  const timeoutMs =
    Number.isFinite(requested) && requested >= 0 && requested <= WAIT_MAX_TIMEOUT_MS ? requested : undefined;
  if (timeoutMs === undefined) return deps.pageWait(params);
  const { timeout: _alias, ...rest } = params;
  const started = now();
  let networkWaitMs = 0;
  for (;;) {
    const left = Math.max(0, timeoutMs - (now() - started));
    const page = await deps.pageWait({ ...rest, timeout_ms: Math.round(left) });
    if (!page.success) return page;
    const owners = await deps.owners();
    if (deps.requests.pending(owners).length === 0) {
      return {
        ...page,
        waited_ms: Math.round(now() - started),
        network_wait_ms: Math.round(networkWaitMs),
        requests_in_flight: 0,
      };
    }
    const networkStarted = now();
    const idle = await deps.requests.waitForIdle(owners, timeoutMs - (now() - started), signal);
    if (signal?.aborted) throw deps.stopError(signal);
    networkWaitMs += now() - networkStarted;
    if (!idle) {
      const pending = deps.requests.pending(owners);
      const named = pending.slice(0, URLS_NAMED_ON_TIMEOUT).map((request) => request.url);
      return {
        success: false,
        code: "timeout",
        error: `wait_for_stable: the page still had ${pending.length} request(s) in flight after ${timeoutMs} ms (${named.join(", ")}); read the page as it is, or wait longer with a larger timeout_ms.`,
        requests_in_flight: pending.length,
      };
    }
  }
}
