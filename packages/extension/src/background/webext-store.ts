/**
 * The agent's Store over `browser.storage`. Conversations (`agentConv:<tabId>`) belong to the
 * browser session, so they go to `storage.session` under exactly spec 000's key; everything
 * else the agent keeps (such as "always allow" permission grants) is meant to last, so it goes
 * to `storage.local`, namespaced with LOCAL_PREFIX so it never collides with the add-on's own
 * keys (`settings`).
 */
import type { JsonValue, Store } from "@webbrain/agent";
import type { KeyValueArea } from "./settings-store.js";

export const LOCAL_PREFIX = "agent:";
export const SESSION_KEY_PREFIXES = ["agentConv:"];

export interface ListableArea extends KeyValueArea {
  get(keys?: string | string[] | null): Promise<Record<string, unknown>>;
}

export class WebExtStore implements Store {
  constructor(
    private readonly local: ListableArea,
    private readonly session: ListableArea,
  ) {}

  private route(key: string): { area: ListableArea; stored: string; prefix: string } {
    return SESSION_KEY_PREFIXES.some((prefix) => key.startsWith(prefix))
      ? { area: this.session, stored: key, prefix: "" }
      : { area: this.local, stored: LOCAL_PREFIX + key, prefix: LOCAL_PREFIX };
  }

  async get(key: string): Promise<JsonValue | undefined> {
    const { area, stored } = this.route(key);
    const values = await area.get(stored);
    return values[stored] as JsonValue | undefined;
  }

  async set(key: string, value: JsonValue): Promise<void> {
    const { area, stored } = this.route(key);
    await area.set({ [stored]: value });
  }

  async remove(key: string): Promise<void> {
    const { area, stored } = this.route(key);
    await area.remove(stored);
  }

  async keys(prefix = ""): Promise<string[]> {
    const [session, local] = await Promise.all([this.session.get(null), this.local.get(null)]);
    const sessionKeys = Object.keys(session).filter(
      (key) => key.startsWith(prefix) && SESSION_KEY_PREFIXES.some((p) => key.startsWith(p)),
    );
    const localKeys = Object.keys(local)
      .filter((key) => key.startsWith(LOCAL_PREFIX + prefix))
      .map((key) => key.slice(LOCAL_PREFIX.length));
    return [...sessionKeys, ...localKeys];
  }
}
