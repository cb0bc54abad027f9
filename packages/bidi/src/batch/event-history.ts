/**
 * The events one browser sent, kept for the model, and the waits that consume them.
 *
 * Invariants:
 * - at most EVENT_HISTORY_ENTRIES entries are kept; the oldest go first, and the
 *   number lost before anyone read them is counted;
 * - an event over MAX_EVENT_BYTES is stored as a summary (method, size, the
 *   short scalar fields of its params, the names of the others), never verbatim,
 *   so a matched wait shows the same summary;
 * - `takeUndelivered` hands each entry out once, so a tool call shows the events
 *   that arrived since the previous call (or during it);
 * - a `EventWait` sees only events recorded after it was created, and each event
 *   satisfies at most one listed method of it.
 */

import { EVENT_HISTORY_ENTRIES, MAX_EVENT_BYTES, utf8Bytes } from "./budgets.js";
import type { EventFrame, JsonObject, JsonValue, RecordedEvent, WaitRequest } from "./types.js";

/** Scalars up to this many characters are kept in a summary; longer ones are cut. */
const SUMMARY_SCALAR_CHARS = 256;
/** A summary lists at most this many param names. */
const SUMMARY_MAX_FIELDS = 32;

export function summarizeParams(params: JsonObject, bytes: number): JsonObject {
  const kept: JsonObject = {};
  const omitted: string[] = [];
  for (const [key, value] of Object.entries(params).slice(0, SUMMARY_MAX_FIELDS)) {
    if (typeof value === "string") {
      kept[key] = value.length > SUMMARY_SCALAR_CHARS ? `${value.slice(0, SUMMARY_SCALAR_CHARS)}…` : value;
    } else if (typeof value === "number" || typeof value === "boolean" || value === null) {
      kept[key] = value;
    } else {
      omitted.push(key);
    }
  }
  const summary: JsonObject = {
    summary: `event of ${bytes} bytes exceeds the ${MAX_EVENT_BYTES}-byte limit; scalar params kept, nested params omitted`,
    ...kept,
  };
  if (omitted.length > 0) summary.omittedParams = omitted;
  return summary;
}

export class EventHistory {
  readonly #entries: RecordedEvent[] = [];
  readonly #waits = new Set<EventWait>();
  #seq = 0;
  #deliveredThrough = 0;
  #lostUndelivered = 0;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  record(event: EventFrame): RecordedEvent {
    const params = event.params ?? {};
    const bytes = utf8Bytes(JSON.stringify({ method: event.method, params }));
    const summarized = bytes > MAX_EVENT_BYTES;
    this.#seq += 1;
    const entry: RecordedEvent = {
      seq: this.#seq,
      receivedAt: this.#now(),
      method: event.method,
      bytes,
      params: summarized ? summarizeParams(params, bytes) : params,
      summarized,
    };
    this.#entries.push(entry);
    while (this.#entries.length > EVENT_HISTORY_ENTRIES) {
      const dropped = this.#entries.shift();
      if (dropped && dropped.seq > this.#deliveredThrough) this.#lostUndelivered += 1;
    }
    for (const wait of this.#waits) wait.offer(entry, params);
    return entry;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Every entry kept, oldest first. */
  entries(): readonly RecordedEvent[] {
    return this.#entries;
  }

  /** Entries not yet handed out, oldest first, plus how many were lost to the cap before that. */
  takeUndelivered(): { events: RecordedEvent[]; lost: number } {
    const events = this.#entries.filter((entry) => entry.seq > this.#deliveredThrough);
    const lost = this.#lostUndelivered;
    this.#deliveredThrough = this.#seq;
    this.#lostUndelivered = 0;
    return { events, lost };
  }

  /** Starts a wait that sees only events recorded from now on. */
  startWait(request: Omit<WaitRequest, "timeoutMs">): EventWait {
    const wait = new EventWait(request.methods, request.context, () => this.#waits.delete(wait));
    this.#waits.add(wait);
    return wait;
  }
}

export class EventWait {
  readonly #missing: string[];
  readonly #matched: RecordedEvent[] = [];
  readonly #context: string | undefined;
  readonly #detach: () => void;
  #resolveDone: (() => void) | undefined;
  readonly done: Promise<void>;

  constructor(methods: readonly string[], context: string | undefined, detach: () => void) {
    this.#missing = [...methods];
    this.#context = context;
    this.#detach = detach;
    this.done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
    if (this.#missing.length === 0) this.#finish();
  }

  /** Called by the history for each new event; `rawParams` are the unsummarized params. */
  offer(entry: RecordedEvent, rawParams: JsonObject): void {
    if (this.#missing.length === 0) return;
    if (this.#context !== undefined && (rawParams.context as JsonValue | undefined) !== this.#context) return;
    const index = this.#missing.indexOf(entry.method);
    if (index === -1) return;
    this.#missing.splice(index, 1);
    this.#matched.push(entry);
    if (this.#missing.length === 0) this.#finish();
  }

  get matched(): readonly RecordedEvent[] {
    return this.#matched;
  }

  get missing(): readonly string[] {
    return this.#missing;
  }

  get satisfied(): boolean {
    return this.#missing.length === 0;
  }

  /** Stops listening; idempotent. */
  cancel(): void {
    this.#finish();
  }

  #finish(): void {
    this.#detach();
    this.#resolveDone?.();
  }
}
