/**
 * Frame ids over one browser's life.
 *
 * Invariant: an id handed to the wire is never handed out again while this
 * ledger lives, even when its frame timed out (a late answer to a timed-out id
 * must never be mistaken for the answer to a new frame). One ledger per browser
 * process; a relaunched browser starts a new one.
 *
 * Ids the connection itself used (for `session.new` and the like) are burned
 * with `reserve` so that callers cannot collide with them either.
 */

/** Largest id BiDi accepts: ids are `js-uint`, at most 2^53 - 1. */
const MAX_FRAME_ID = Number.MAX_SAFE_INTEGER;

export class FrameIdLedger {
  readonly #used = new Set<number>();
  #nextAutomatic = 1;

  /** Marks ids as used without sending anything. */
  reserve(ids: Iterable<number>): void {
    for (const id of ids) this.#used.add(id);
  }

  has(id: number): boolean {
    return this.#used.has(id);
  }

  /** Marks one id as used; false when it already was. */
  claim(id: number): boolean {
    if (this.#used.has(id)) return false;
    this.#used.add(id);
    return true;
  }

  /** The smallest id above every automatic id so far that is neither used nor in `avoid`. */
  nextFree(avoid: ReadonlySet<number>): number {
    let id = this.#nextAutomatic;
    while (this.#used.has(id) || avoid.has(id)) id += 1;
    if (id > MAX_FRAME_ID)
      throw new RangeError("No frame ids are left for this browser; close and relaunch it.");
    this.#nextAutomatic = id + 1;
    return id;
  }

  get size(): number {
    return this.#used.size;
  }
}

/** True when `id` is a valid BiDi command id. */
export function isValidFrameId(id: unknown): id is number {
  return typeof id === "number" && Number.isSafeInteger(id) && id >= 0 && id <= MAX_FRAME_ID;
}
