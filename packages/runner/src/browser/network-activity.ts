/**
 * Fetch and XHR requests in flight, per browsing context, from BiDi network events: what
 * `wait_for_stable` needs besides a quiet DOM (spec 000: "polls MutationObserver + in-flight
 * fetch/XHR"). Page script cannot see a request until it has finished; Firefox can.
 *
 * Invariants:
 * - Only requests a page script started count (`initiatorType` fetch or xmlhttprequest):
 *   images, styles and documents settle with the load event, which the page layer checks.
 * - A request ends with `network.responseCompleted` or `network.fetchError`; a redirect keeps
 *   its request id, so it stays one request. A destroyed context drops its requests.
 * - A request in flight longer than LONG_POLL_MS is a background connection (long poll,
 *   streaming fetch) and no longer counts, or no page that keeps one open would ever be stable;
 *   after FORGET_AFTER_MS it is dropped altogether.
 * - Events come from a BidiEventSource: the port's BrowsingContextTree (only its own contexts'
 *   events, on the port's one subscription), or a BidiClient in unit tests.
 */
import type { BidiEventSource } from "./browsing-context-state.js";

export const NETWORK_EVENTS = [
  "network.beforeRequestSent",
  "network.responseCompleted",
  "network.fetchError",
] as const;

/** Requests older than this are background connections, not work the page is waiting on, ms. */
export const LONG_POLL_MS = 10_000;
/**
 * Requests older than this are forgotten: a request whose end Firefox never reported (a frame
 * torn down mid-request) must not stay in memory for the life of a long-running tab, ms.
 */
const FORGET_AFTER_MS = 5 * 60_000;

const SCRIPT_INITIATED = new Set(["fetch", "xmlhttprequest"]);

interface InFlight {
  context: string;
  url: string;
  startedAt: number;
}

export interface PendingRequest {
  url: string;
  /** How long it has been in flight, ms. */
  ageMs: number;
}

export class NetworkActivity {
  readonly #client: BidiEventSource;
  readonly #now: () => number;
  readonly #inFlight = new Map<string, InFlight>();
  #changed: (() => void)[] = [];
  #removers: (() => void)[] = [];

  constructor(client: BidiEventSource, now: () => number = performance.now.bind(performance)) {
    this.#client = client;
    this.#now = now;
  }

  start(): void {
    if (this.#removers.length > 0) return;
    const settle = (id: string) => {
      if (this.#inFlight.delete(id)) this.#notify();
    };
    this.#removers.push(
      this.#client.on("network.beforeRequestSent", (event) => {
        const initiatorType = (event.request as { initiatorType?: string | null }).initiatorType;
        if (!event.context || !initiatorType || !SCRIPT_INITIATED.has(initiatorType)) return;
        if (this.#inFlight.has(event.request.request)) return; // a redirect of a request we know
        this.#inFlight.set(event.request.request, {
          context: event.context,
          url: event.request.url,
          startedAt: this.#now(),
        });
      }),
      this.#client.on("network.responseCompleted", (event) => settle(event.request.request)),
      this.#client.on("network.fetchError", (event) => settle(event.request.request)),
      this.#client.on("browsingContext.contextDestroyed", (info) => {
        for (const [id, request] of this.#inFlight)
          if (request.context === info.context) this.#inFlight.delete(id);
        this.#notify();
      }),
    );
  }

  stop(): void {
    for (const remove of this.#removers) remove();
    this.#removers = [];
    this.#inFlight.clear();
    this.#notify();
  }

  /** Script-initiated requests in flight in these contexts (long polls excluded). */
  pending(contexts: ReadonlySet<string>): PendingRequest[] {
    const now = this.#now();
    const out: PendingRequest[] = [];
    for (const [id, request] of this.#inFlight) {
      const ageMs = now - request.startedAt;
      if (ageMs > FORGET_AFTER_MS) this.#inFlight.delete(id);
      else if (contexts.has(request.context) && ageMs < LONG_POLL_MS) out.push({ url: request.url, ageMs });
    }
    return out;
  }

  /** Resolves true once nothing is pending in these contexts, false after `timeoutMs`. */
  async waitForIdle(
    contexts: ReadonlySet<string>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const deadline = this.#now() + timeoutMs;
    for (let pending = this.pending(contexts); pending.length > 0; pending = this.pending(contexts)) {
      const left = deadline - this.#now();
      // Stop answers "not idle" at once; the caller reads the signal and reports the Stop.
      if (left <= 0 || signal?.aborted) return false;
      // Wake on any settled request, or when the oldest request turns into a long poll, or Stop.
      const oldest = Math.max(...pending.map((request) => request.ageMs));
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", wake);
          this.#changed = this.#changed.filter((other) => other !== wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(1, Math.min(left, LONG_POLL_MS - oldest)));
        this.#changed.push(wake);
        signal?.addEventListener("abort", wake, { once: true });
      });
    }
    return true;
  }

  #notify(): void {
    for (const wake of this.#changed.splice(0)) wake();
  }
}
