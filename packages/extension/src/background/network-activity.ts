/**
 * Fetch and XHR requests in flight, per tab, from `browser.webRequest`: the add-on's feed for the
 * agent's `InFlightRequests` (the bookkeeping, long polls and the wait for none live there, shared
 * with the runner), which wait_for_stable reads besides a quiet DOM. Page script cannot see a
 * request until it has finished; the add-on's background page can.
 *
 * Invariants:
 * - Only `xmlhttprequest` requests count (Firefox reports fetch() as that type too): images,
 *   styles and documents settle with the load event, which the page layer checks.
 * - A request ends with onCompleted or onErrorOccurred; a redirect keeps its requestId, so it
 *   stays one request. Requests without a tab (tabId -1: the add-on's own fetches) never count.
 */
import { InFlightRequests, type RequestEventSource } from "@webbrain/agent";

export { LONG_POLL_MS, type PendingRequest } from "@webbrain/agent";

const FILTER: browser.webRequest.RequestFilter = { urls: ["<all_urls>"], types: ["xmlhttprequest"] };

type RequestListener = (details: browser.webRequest.RequestDetails) => void;

/** The slice of browser.webRequest this needs; tests may pass their own. */
export interface RequestEvents {
  onBeforeRequest: browser.webRequest.RequestEvent;
  onCompleted: browser.webRequest.RequestEvent;
  onErrorOccurred: browser.webRequest.RequestEvent;
}

/** XHR and fetch requests by tab, from webRequest's events. */
function webRequestEvents(events: RequestEvents): RequestEventSource<number> {
  return (sink) => {
    const begin: RequestListener = (details) => {
      if (details.tabId >= 0) sink.began(details.requestId, details.tabId, details.url);
    };
    const end: RequestListener = (details) => sink.ended(details.requestId);
    const listeners: [browser.webRequest.RequestEvent, RequestListener][] = [
      [events.onBeforeRequest, begin],
      [events.onCompleted, end],
      [events.onErrorOccurred, end],
    ];
    for (const [event, listener] of listeners) event.addListener(listener, FILTER);
    return () => {
      for (const [event, listener] of listeners) event.removeListener(listener);
    };
  };
}

/** Requests in flight by tab (every frame of it): `pending(new Set([tabId]))`, `waitForIdle(...)`. */
export class NetworkActivity extends InFlightRequests<number> {
  constructor(events: RequestEvents, now: () => number = () => performance.now()) {
    super(webRequestEvents(events), now);
  }
}
