/** A storage area in memory with browser.storage's semantics (values copied in and out). */
export class MemoryArea {
  readonly values = new Map<string, string>();
  writes = 0;

  async get(keys?: string | string[] | null): Promise<Record<string, unknown>> {
    const wanted =
      keys === null || keys === undefined ? [...this.values.keys()] : Array.isArray(keys) ? keys : [keys];
    const out: Record<string, unknown> = {};
    for (const key of wanted) {
      const raw = this.values.get(key);
      if (raw !== undefined) out[key] = JSON.parse(raw);
    }
    return out;
  }

  async set(items: Record<string, unknown>): Promise<void> {
    this.writes++;
    for (const [key, value] of Object.entries(items)) this.values.set(key, JSON.stringify(value));
  }

  async remove(keys: string | string[]): Promise<void> {
    for (const key of Array.isArray(keys) ? keys : [keys]) this.values.delete(key);
  }
}
