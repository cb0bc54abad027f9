/**
 * Settings over `browser.storage.local`: read always yields whole, valid Settings (see
 * parseSettings); save refuses a provider the form would refuse, naming it, so nothing
 * invalid is ever stored.
 */
import { parseSettings, SETTINGS_KEY, type Settings, validateProvider } from "../shared/settings.js";

export interface KeyValueArea {
  get(keys: string | string[]): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string | string[]): Promise<void>;
}

export class SettingsStore {
  constructor(private readonly area: KeyValueArea) {}

  async load(): Promise<Settings> {
    const stored = await this.area.get(SETTINGS_KEY);
    return parseSettings(stored[SETTINGS_KEY]).settings;
  }

  /** Whether settings were ever saved (false on a fresh install). */
  async exists(): Promise<boolean> {
    const stored = await this.area.get(SETTINGS_KEY);
    return stored[SETTINGS_KEY] !== undefined;
  }

  async save(next: Settings): Promise<Settings> {
    for (const provider of next.providers) {
      const problems = validateProvider(provider);
      if (problems.length > 0) {
        throw new Error(
          `Provider "${provider.label || provider.id}": ${problems.map((p) => p.message).join(" ")}`,
        );
      }
    }
    const ids = new Set(next.providers.map((p) => p.id));
    if (ids.size !== next.providers.length)
      throw new Error("Two providers share one id; edit one of them again.");
    const { settings, problems } = parseSettings(next);
    if (problems.length > 0) throw new Error(`Settings not saved: ${problems.join("; ")}`);
    await this.area.set({ [SETTINGS_KEY]: settings });
    return settings;
  }
}
