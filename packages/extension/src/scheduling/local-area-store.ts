/**
 * A `Store` over `browser.storage.local` with keys as they are (no prefix), for data whose
 * storage key is part of the spec (`wb_scheduled_jobs`, `customSkills`).
 */
import type { JsonValue, Store } from "@webbrain/agent";

export interface LocalArea {
  get(keys?: string | string[] | null): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string | string[]): Promise<void>;
}

export class LocalAreaStore implements Store {
  constructor(private readonly area: LocalArea) {}

  async get(key: string): Promise<JsonValue | undefined> {
    return (await this.area.get(key))[key] as JsonValue | undefined;
  }

  async set(key: string, value: JsonValue): Promise<void> {
    await this.area.set({ [key]: value });
  }

  async remove(key: string): Promise<void> {
    await this.area.remove(key);
  }

  async keys(prefix = ""): Promise<string[]> {
    return Object.keys(await this.area.get(null)).filter((key) => key.startsWith(prefix));
  }
}
