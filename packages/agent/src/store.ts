/**
 * Store: async key/value storage of JSON values, the agent's only persistence.
 *
 * The add-on implements it over browser.storage (session for conversations, local for
 * settings and "always" permissions); the runner over a JSON file or memory. Invariants:
 * - `get` of a missing key resolves `undefined`, never throws.
 * - Values round-trip as JSON: what `set` stores, `get` returns structurally equal (callers
 *   must not rely on identity).
 * - `set` resolves only once the value is durable for that store's lifetime, so a caller that
 *   awaited it may crash without losing the value.
 */
import type { JsonValue } from "./tools/browser-port.js";

export interface Store {
  get(key: string): Promise<JsonValue | undefined>;
  set(key: string, value: JsonValue): Promise<void>;
  remove(key: string): Promise<void>;
  /** Keys starting with prefix (all keys when omitted). */
  keys(prefix?: string): Promise<string[]>;
}

/** A Store in memory: tests, and the runner when nothing should outlive the process. */
export class MemoryStore implements Store {
  private readonly values = new Map<string, string>();

  async get(key: string): Promise<JsonValue | undefined> {
    const raw = this.values.get(key);
    // Stored as JSON text so callers get a copy, the same as a real storage backend.
    return raw === undefined ? undefined : (JSON.parse(raw) as JsonValue);
  }

  async set(key: string, value: JsonValue): Promise<void> {
    this.values.set(key, JSON.stringify(value));
  }

  async remove(key: string): Promise<void> {
    this.values.delete(key);
  }

  async keys(prefix = ""): Promise<string[]> {
    return [...this.values.keys()].filter((key) => key.startsWith(prefix));
  }
}
