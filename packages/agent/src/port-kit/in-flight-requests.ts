/**
 * Fetch and XHR requests in flight, by owner (a tab, or one browsing context of it): what
 * `wait_for_stable` needs besides a quiet DOM (spec 000: "polls MutationObserver + in-flight
 * fetch/XHR"). Page script cannot see a request until it has finished; the browser can, and each
 * port feeds what its browser reports through a `RequestEventSource` (the runner: BiDi network
 * events by browsing context; the add-on: webRequest by tab).
 *
 * Invariants:
 * - The source reports only requests a page script started (fetch, XHR): images, styles and
 *   documents settle with the load event, which the page layer checks.
 * - A request is known by its id from `began` to `ended`; a redirect keeps its id, so a second
 *   `began` for a known id changes nothing. An owner that is gone drops its requests.
 * - A request in flight longer than LONG_POLL_MS is a background connection (long poll,
 *   streaming fetch) and no longer counts, or no page that keeps one open would ever be stable;
 *   after FORGET_AFTER_MS it is dropped altogether.
 * - Stop (the signal) makes `waitForIdle` answer `false` at once; the caller reads the signal and
 *   reports the Stop in its own port's words.
 */

/** Requests older than this are background connections, not work the page is waiting on, ms. */
export const LONG_POLL_MS = 10_000;
/**
 * Requests older than this are forgotten: a request whose end the browser never reported (a
 * frame torn down mid-request) must not stay in memory for the life of a long-running tab, ms.
 */
const FORGET_AFTER_MS = 5 * 60_000;

/** What a port's event source tells the bookkeeping. */
export interface RequestEventSink<Owner> {
  /** A script-initiated request started (or was redirected: the same id again). */
  began(requestId: string, owner: Owner, url: string): void;
  /** The request completed or failed. */
  ended(requestId: string): void;
  /** The owner (a browsing context, a tab) is gone, with whatever it had in flight. */
  ownerGone(owner: Owner): void;
}

/** Subscribes `sink` to the browser's request events; the answer unsubscribes. */
export type RequestEventSource<Owner> = (sink: RequestEventSink<Owner>) => () => void;

export interface PendingRequest {
  url: string;
  /** How long it has been in flight, ms. */
  ageMs: number;
}

interface InFlight<Owner> {
  owner: Owner;
  url: string;
  startedAt: number;
}

export class InFlightRequests<Owner> {
  readonly #source: RequestEventSource<Owner>;
  readonly #now: () => number;
  readonly #inFlight = new Map<string, InFlight<Owner>>();
  #wakers: (() => void)[] = [];
  #unsubscribe: (() => void) | undefined;

  constructor(source: RequestEventSource<Owner>, now: () => number = () => performance.now()) {
    this.#source = source;
    this.#now = now;
  }

  /** Starts listening (again after `stop`); a second call while listening does nothing. */
  start(): void {
    if (this.#unsubscribe) return;
    this.#unsubscribe = this.#source({
      began: (requestId, owner, url) => {
        if (this.#inFlight.has(requestId)) return; // a redirect of a request we know
        this.#inFlight.set(requestId, { owner, url, startedAt: this.#now() });
      },
      ended: (requestId) => {
        if (this.#inFlight.delete(requestId)) this.#notify();
      },
      ownerGone: (owner) => {
        for (const [id, request] of this.#inFlight) if (request.owner === owner) this.#inFlight.delete(id);
        this.#notify();
      },
    });
  }

  /** Stops listening, forgets every request and wakes every wait (which then finds none). */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#inFlight.clear();
    this.#notify();
  }

  /** Requests in flight for these owners (long polls excluded). */
  pending(owners: ReadonlySet<Owner>): PendingRequest[] {
    const now = this.#now();
    const out: PendingRequest[] = [];
    for (const [id, request] of this.#inFlight) {
      const ageMs = now - request.startedAt;
      if (ageMs > FORGET_AFTER_MS) this.#inFlight.delete(id);
      else if (owners.has(request.owner) && ageMs < LONG_POLL_MS) out.push({ url: request.url, ageMs });
    }
    return out;
  }

  /** Resolves true once nothing is pending for these owners, false after `timeoutMs` or on Stop. */
  async waitForIdle(owners: ReadonlySet<Owner>, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const deadline = this.#now() + timeoutMs;
    for (let pending = this.pending(owners); pending.length > 0; pending = this.pending(owners)) {
      const left = deadline - this.#now();
      if (left <= 0 || signal?.aborted) return false;
      // Wake on any settled request, when the oldest request turns into a long poll, or on Stop.
      const oldest = Math.max(...pending.map((request) => request.ageMs));
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", wake);
          this.#wakers = this.#wakers.filter((other) => other !== wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(1, Math.min(left, LONG_POLL_MS - oldest)));
        this.#wakers.push(wake);
        signal?.addEventListener("abort", wake, { once: true });
      });
    }
    return true;
  }

  #notify(): void {
    for (const wake of this.#wakers.splice(0)) wake();
  }
}
