/**
 * RefRegistry: the numbers printed in the tree as `[12]`.
 *
 * Invariants (DESIGN.md "Refs are stable and never reused"):
 * - An element keeps its number for its whole life (element -> ref in a WeakMap, O(1)).
 * - A number never moves to another element: the counter only grows, and callers may raise
 *   its floor (`ref_floor`) so numbers stay unique across navigations of one tab.
 * - The registry holds elements weakly (WeakRef): it never keeps a removed element alive.
 * - A ref whose element is gone, detached, or in an unloaded document resolves to `stale`
 *   with the role and name it had, so the error can say what it was.
 */

export interface RefRecord {
  ref: number;
  element: WeakRef<Element>;
  role: string;
  name: string;
}

export type RefLookup =
  | { kind: "live"; element: Element; record: RefRecord }
  | { kind: "stale"; record: RefRecord }
  | { kind: "unknown" };

/**
 * Records of collected elements are kept (they answer "stale: it was button "Save"") until the
 * map holds this many records; then the collected ones are dropped (they answer "unknown").
 */
const MAX_RECORDS_BEFORE_SWEEP = 50_000;

export class RefRegistry {
  #next = 1;
  readonly #refOf = new WeakMap<Element, number>();
  readonly #records = new Map<number, RefRecord>();

  /** Never hand out a number <= floor (used by callers to keep refs unique per tab). */
  raiseFloor(floor: number): void {
    if (Number.isInteger(floor) && floor >= this.#next) this.#next = floor + 1;
  }

  get lastIssued(): number {
    return this.#next - 1;
  }

  peek(el: Element): number | undefined {
    return this.#refOf.get(el);
  }

  /** The element's ref, issuing one if it has none; remembers the role/name last shown. */
  refFor(el: Element, role: string, name: string): number {
    const existing = this.#refOf.get(el);
    if (existing !== undefined) {
      const record = this.#records.get(existing);
      if (record) {
        record.role = role;
        record.name = name;
      }
      return existing;
    }
    const ref = this.#next++;
    this.#refOf.set(el, ref);
    this.#records.set(ref, { ref, element: new WeakRef(el), role, name });
    if (this.#records.size > MAX_RECORDS_BEFORE_SWEEP) this.#sweep();
    return ref;
  }

  lookup(ref: number): RefLookup {
    const record = this.#records.get(ref);
    if (!record) return { kind: "unknown" };
    const element = record.element.deref();
    if (!element || !isLive(element)) return { kind: "stale", record };
    return { kind: "live", element, record };
  }

  #sweep(): void {
    for (const [ref, record] of this.#records) {
      if (!record.element.deref()) this.#records.delete(ref);
    }
  }
}

/** Connected to a document that is still loaded in a window. */
export function isLive(el: Element): boolean {
  return el.isConnected && el.ownerDocument.defaultView !== null;
}
