/**
 * Permission gate: capability x origin. Before a tool uses a capability on an origin for the
 * first time, the user is asked (allow once / allow always / deny) through an injectable
 * approver. "Always" is persisted in the Store, so it survives restarts.
 *
 * Invariants:
 * - With no approver the gate allows everything: the runner has no person at hand and opts
 *   in with a flag (DESIGN.md); the add-on always passes one.
 * - "once" allows only the call that asked; "deny" refuses only that call (the model is told
 *   not to retry); neither is persisted.
 * - A persisted grant is exact: the same capability on the same origin.
 */
import type { PermissionCapability } from "@webbrain/protocol";
import type { Store } from "../store.js";

export interface PermissionRequest {
  capability: PermissionCapability;
  /** `https://example.com` (scheme + host + port), or the URL itself when it has no origin. */
  origin: string;
  tool: string;
  /** What the call will do, for the prompt ("click_ax ref 12", "POST https://api/x"). */
  detail: string;
}

export type PermissionAnswer = "once" | "always" | "deny";

export type PermissionApprover = (request: PermissionRequest) => Promise<PermissionAnswer>;

export const ALWAYS_GRANTS_KEY = "permissions:always";

export function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.origin !== "null" ? parsed.origin : `${parsed.protocol}${parsed.pathname}`;
  } catch {
    return url;
  }
}

export type GateDecision = { allowed: true } | { allowed: false; message: string };

export class PermissionGate {
  constructor(
    private readonly store: Store,
    private readonly approver: PermissionApprover | undefined,
  ) {}

  private async grants(): Promise<Record<string, boolean>> {
    const stored = await this.store.get(ALWAYS_GRANTS_KEY);
    return stored && typeof stored === "object" && !Array.isArray(stored)
      ? (stored as Record<string, boolean>)
      : {};
  }

  async check(request: PermissionRequest): Promise<GateDecision> {
    if (!this.approver) return { allowed: true };
    const grantKey = `${request.capability} ${request.origin}`;
    const grants = await this.grants();
    if (grants[grantKey] === true) return { allowed: true };
    const answer = await this.approver(request);
    if (answer === "always") {
      await this.store.set(ALWAYS_GRANTS_KEY, { ...(await this.grants()), [grantKey]: true });
      return { allowed: true };
    }
    if (answer === "once") return { allowed: true };
    return {
      allowed: false,
      message: `The user denied ${request.capability} on ${request.origin} (${request.detail}). Do not retry it; continue without it or explain in done what you could not do.`,
    };
  }

  /** Remove a persisted "always" grant (settings UI). */
  async revoke(capability: PermissionCapability, origin: string): Promise<void> {
    const grants = await this.grants();
    delete grants[`${capability} ${origin}`];
    await this.store.set(ALWAYS_GRANTS_KEY, grants);
  }
}
