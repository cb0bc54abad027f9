/**
 * EventListeners: the typed listener list of the browsing-context model (browsing-context.ts,
 * browsing-context-tree.ts). Like BidiClient's `on`, adding a listener returns its remover, so a
 * feature keeps removers, not references to handlers; `clear()` drops them all at once, which is
 * how a disposed context takes every listener registered on it along.
 *
 * Invariants:
 * - `emit` calls the listeners registered when it started; one added meanwhile hears the next emit.
 * - A listener that throws does not stop the others: its error is rethrown in a microtask, as
 *   BidiClient does for its own listeners.
 */

/** Stored untyped: `on` and `emit` take and give each name's own argument types. */
type Listener = (...args: unknown[]) => void;

export class EventListeners<Events extends { [K in keyof Events]: unknown[] }> {
  readonly #byName = new Map<keyof Events, Set<Listener>>();

  on<K extends keyof Events>(name: K, listener: (...args: Events[K]) => void): () => void {
    let set = this.#byName.get(name);
    if (!set) {
      set = new Set();
      this.#byName.set(name, set);
    }
    const stored = listener as unknown as Listener;
    set.add(stored);
    return () => {
      const current = this.#byName.get(name);
      current?.delete(stored);
      if (current?.size === 0) this.#byName.delete(name);
    };
  }

  emit<K extends keyof Events>(name: K, ...args: Events[K]): void {
    const set = this.#byName.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(...args);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** How many listeners are registered, over all names (leak checks in tests). */
  get size(): number {
    let count = 0;
    for (const set of this.#byName.values()) count += set.size;
    return count;
  }

  clear(): void {
    this.#byName.clear();
  }
}
