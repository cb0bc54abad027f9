/**
 * The live sessions of `webbrain mcp --port`: at most `maxSessions` at once (those still opening
 * count), each ended after `idleTimeoutMs` without a request. Every session holds a Firefox user
 * context (its own tabs, cookies, memory), so a forgotten client must not hold one forever.
 *
 * Invariants:
 * - A session is idle only while no request of its own is in flight (a long tool call keeps it);
 *   the standalone GET event stream a client keeps open does not count as work.
 * - `end` runs a session's close once, whatever ends it first (DELETE, expiry, transport close,
 *   server stop), and the slot is free again when its user context is gone.
 */

export interface SessionEntry {
  /** Removes the session's user context; idempotent. */
  close(reason: string): Promise<void>;
}

interface Tracked<E> {
  entry: E;
  inFlight: number;
  timer: NodeJS.Timeout | undefined;
}

export class SessionTable<E extends SessionEntry> {
  readonly #sessions = new Map<string, Tracked<E>>();
  readonly #maxSessions: number;
  readonly #idleTimeoutMs: number;
  /** Slots held by sessions being opened or still removing their user context. */
  #pending = 0;

  constructor(options: { maxSessions: number; idleTimeoutMs: number }) {
    this.#maxSessions = options.maxSessions;
    this.#idleTimeoutMs = options.idleTimeoutMs;
  }

  get size(): number {
    return this.#sessions.size;
  }

  get maxSessions(): number {
    return this.#maxSessions;
  }

  /** Holds a slot for a session being opened; false when the cap is reached. */
  reserve(): boolean {
    if (this.#sessions.size + this.#pending >= this.#maxSessions) return false;
    this.#pending++;
    return true;
  }

  /** Gives back a reserved slot that did not become a session. */
  release(): void {
    this.#pending = Math.max(0, this.#pending - 1);
  }

  /**
   * Turns a reserved slot into a live session. Its initialize request is in flight: the idle
   * clock starts when `settled` runs for it.
   */
  add(id: string, entry: E): void {
    this.release();
    this.#sessions.set(id, { entry, inFlight: 1, timer: undefined });
  }

  get(id: string): E | undefined {
    return this.#sessions.get(id)?.entry;
  }

  ids(): string[] {
    return [...this.#sessions.keys()];
  }

  /** A request of the session started: it is not idle until the request is done. */
  started(id: string): void {
    const tracked = this.#sessions.get(id);
    if (!tracked) return;
    tracked.inFlight++;
    clearTimeout(tracked.timer);
    tracked.timer = undefined;
  }

  /** A request of the session is done (its response closed): idle again once none is left. */
  settled(id: string): void {
    const tracked = this.#sessions.get(id);
    if (!tracked) return;
    tracked.inFlight = Math.max(0, tracked.inFlight - 1);
    if (tracked.inFlight > 0) return;
    clearTimeout(tracked.timer);
    tracked.timer = setTimeout(() => {
      void this.end(id, `idle for ${Math.round(this.#idleTimeoutMs / 1000)} s`);
    }, this.#idleTimeoutMs);
    tracked.timer.unref();
  }

  /** Ends a session (once), freeing its slot and its user context. */
  async end(id: string, reason: string): Promise<void> {
    const tracked = this.#sessions.get(id);
    if (!tracked) return;
    this.#sessions.delete(id);
    clearTimeout(tracked.timer);
    this.#pending++; // The slot stays taken until the user context is gone.
    try {
      await tracked.entry.close(reason);
    } finally {
      this.release();
    }
  }
}
