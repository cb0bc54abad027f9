/**
 * Fetch and XHR requests in flight, per tab, from `browser.webRequest`: what wait_for_stable needs
 * besides a quiet DOM (spec 000: "polls MutationObserver + in-flight fetch/XHR"). Page script
 * cannot see a request until it has finished; the add-on's background page can.
 *
 * Invariants (the runner's NetworkActivity, over webRequest instead of BiDi):
 * - Only `xmlhttprequest` requests count (Firefox reports fetch() as that type too): images,
 *   styles and documents settle with the load event, which the page layer checks.
 * - A request ends with onCompleted or onErrorOccurred; a redirect keeps its requestId, so it
 *   stays one request. Requests without a tab (tabId -1: the add-on's own fetches) never count.
 * - A request in flight longer than LONG_POLL_MS is a background connection (long poll,
 *   streaming fetch) and no longer counts; after FORGET_AFTER_MS it is dropped altogether.
 */

/** Requests older than this are background connections, not work the page is waiting on, ms. */
export const LONG_POLL_MS = 10_000;
/** A request whose end Firefox never reported must not stay in memory for the life of a tab, ms. */
const FORGET_AFTER_MS = 5 * 60_000;

const FILTER: browser.webRequest.RequestFilter = { urls: ["<all_urls>"], types: ["xmlhttprequest"] };

type RequestListener = (details: browser.webRequest.RequestDetails) => void;

/** The slice of browser.webRequest this needs; tests may pass their own. */
export interface RequestEvents {
  onBeforeRequest: browser.webRequest.RequestEvent;
  onCompleted: browser.webRequest.RequestEvent;
  onErrorOccurred: browser.webRequest.RequestEvent;
}

interface InFlight {
  tabId: number;
  url: string;
  startedAt: number;
}

export interface PendingRequest {
  url: string;
  /** How long it has been in flight, ms. */
  ageMs: number;
}

export class NetworkActivity {
  readonly #events: RequestEvents;
  readonly #now: () => number;
  readonly #inFlight = new Map<string, InFlight>();
  #wakers: (() => void)[] = [];
  #listeners: [browser.webRequest.RequestEvent, RequestListener][] = [];

  constructor(events: RequestEvents, now: () => number = () => performance.now()) {
    this.#events = events;
    this.#now = now;
  }

  start(): void {
    if (this.#listeners.length > 0) return;
    const begin: RequestListener = (details) => {
      if (details.tabId < 0 || this.#inFlight.has(details.requestId)) return;
      this.#inFlight.set(details.requestId, {
        tabId: details.tabId,
        url: details.url,
        startedAt: this.#now(),
      });
    };
    const end: RequestListener = (details) => {
      if (this.#inFlight.delete(details.requestId)) this.#notify();
    };
    this.#listeners = [
      [this.#events.onBeforeRequest, begin],
      [this.#events.onCompleted, end],
      [this.#events.onErrorOccurred, end],
    ];
    for (const [event, listener] of this.#listeners) event.addListener(listener, FILTER);
  }

  stop(): void {
    for (const [event, listener] of this.#listeners) event.removeListener(listener);
    this.#listeners = [];
    this.#inFlight.clear();
    this.#notify();
  }

  /** Script-initiated requests in flight in this tab, any frame (long polls excluded). */
  pending(tabId: number): PendingRequest[] {
    const now = this.#now();
    const out: PendingRequest[] = [];
    for (const [id, request] of this.#inFlight) {
      const ageMs = now - request.startedAt;
      if (ageMs > FORGET_AFTER_MS) this.#inFlight.delete(id);
      else if (request.tabId === tabId && ageMs < LONG_POLL_MS) out.push({ url: request.url, ageMs });
    }
    return out;
  }

  /** Resolves true once nothing is pending in the tab, false after `timeoutMs` or when `signal` fires. */
  async waitForIdle(tabId: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const deadline = this.#now() + timeoutMs;
    for (let pending = this.pending(tabId); pending.length > 0; pending = this.pending(tabId)) {
      const left = deadline - this.#now();
      if (left <= 0 || signal?.aborted) return false;
      // Wake on any settled request, or when the oldest request turns into a long poll.
      const oldest = Math.max(...pending.map((request) => request.ageMs));
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", wake);
          this.#wakers = this.#wakers.filter((other) => other !== wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(1, Math.min(left, LONG_POLL_MS - oldest)));
        signal?.addEventListener("abort", wake, { once: true });
        this.#wakers.push(wake);
      });
    }
    return true;
  }

  #notify(): void {
    for (const wake of this.#wakers.splice(0)) wake();
  }
}
