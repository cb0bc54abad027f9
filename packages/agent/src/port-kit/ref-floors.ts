/**
 * `ref_floor` bookkeeping: the highest ref each tab has shown the model, sent with every page
 * call so a new document in the tab (a navigation, a frame) numbers its elements above it. A
 * number the model already saw for another element then answers stale instead of naming
 * something new (DESIGN.md: refs are stable and never reused).
 *
 * Invariants:
 * - A floor only rises: an answer is compared with the floor as it is when the answer arrives,
 *   so a slow call that started under a lower floor never lowers it.
 * - Only a page answer's `meta.last_ref` (the envelope's, @webbrain/protocol page-answer.ts)
 *   raises a floor; a call that throws notes nothing.
 */

export class RefFloors<Tab> {
  readonly #floors = new Map<Tab, number>();

  /** Runs one page call with the tab's floor in its params, and notes the refs its answer showed. */
  async call<Answer>(
    tab: Tab,
    params: Record<string, unknown>,
    send: (params: Record<string, unknown>) => Promise<Answer>,
  ): Promise<Answer> {
    const floor = this.#floors.get(tab);
    const answer = await send(floor === undefined ? params : { ...params, ref_floor: floor });
    this.note(tab, answer);
    return answer;
  }

  /** Raises the tab's floor to the `meta.last_ref` of a page answer. */
  note(tab: Tab, answer: unknown): void {
    const meta = isRecord(answer) ? answer.meta : undefined;
    const last = isRecord(meta) ? meta.last_ref : undefined;
    if (typeof last === "number" && last > (this.#floors.get(tab) ?? 0)) this.#floors.set(tab, last);
  }

  /** The tab's floor, if it has shown any ref. */
  floor(tab: Tab): number | undefined {
    return this.#floors.get(tab);
  }

  /** Forgets a closed tab. */
  forget(tab: Tab): void {
    this.#floors.delete(tab);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
