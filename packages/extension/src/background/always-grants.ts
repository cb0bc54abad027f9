/**
 * The agent's "always allow" grants as the settings page lists and revokes them. The grants
 * live where the agent's PermissionGate keeps them (ALWAYS_GRANTS_KEY in the Store), as keys
 * `"<capability> <origin>"`; revoking goes through the gate, so the next action on that site
 * asks again.
 */
import { ALWAYS_GRANTS_KEY, PermissionGate, type Store } from "@webbrain/agent";
import { isPermissionCapability, PERMISSION_CAPABILITIES } from "@webbrain/protocol";
import type { AlwaysGrant } from "../shared/messages.js";

export class AlwaysGrants {
  constructor(private readonly store: Store) {}

  /** Every stored grant, sorted by site then capability. */
  async list(): Promise<AlwaysGrant[]> {
    const stored = await this.store.get(ALWAYS_GRANTS_KEY);
    if (!stored || typeof stored !== "object" || Array.isArray(stored)) return [];
    const grants: AlwaysGrant[] = [];
    for (const [key, granted] of Object.entries(stored)) {
      const space = key.indexOf(" ");
      const capability = key.slice(0, space);
      if (granted !== true || space < 0 || !isPermissionCapability(capability)) continue;
      grants.push({ capability, origin: key.slice(space + 1) });
    }
    return grants.sort(
      (a, b) => a.origin.localeCompare(b.origin) || a.capability.localeCompare(b.capability),
    );
  }

  async revoke(capability: string, origin: string): Promise<{ revoked: boolean }> {
    if (!isPermissionCapability(capability)) {
      throw new Error(`Unknown capability "${capability}". Known: ${PERMISSION_CAPABILITIES.join(", ")}.`);
    }
    const before = await this.list();
    if (!before.some((g) => g.capability === capability && g.origin === origin)) return { revoked: false };
    await new PermissionGate(this.store, undefined).revoke(capability, origin);
    return { revoked: true };
  }
}
