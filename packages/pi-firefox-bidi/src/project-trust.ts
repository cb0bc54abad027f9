/**
 * Whether project settings (`.pi/settings.json`) may configure this extension.
 *
 * Decision for Pi 0.73.1, which has no trust API and loads project settings
 * and extensions without asking: a project file could point `executablePath`
 * at any binary of the repository, and the extension would run it on the next
 * tool call. So project settings are ignored unless trust is explicit:
 * 1. when the host offers `ctx.isProjectTrusted()` (newer Pi), its answer decides;
 * 2. otherwise the user opts in with `PI_FIREFOX_BIDI_TRUST_PROJECT=1` (or `true`);
 *    `0`/`false`/unset mean untrusted, any other value is invalid: untrusted plus a warning.
 */
import { parseEnvBoolean } from "./settings.js";

export const ENV_TRUST_PROJECT = "PI_FIREFOX_BIDI_TRUST_PROJECT";

export interface TrustDecision {
  trusted: boolean;
  basis: "host" | "env" | "default";
  warning?: string;
}

export function decideProjectTrust(
  ctx: object,
  env: Readonly<Record<string, string | undefined>>,
): TrustDecision {
  const hostCheck = (ctx as { isProjectTrusted?: unknown }).isProjectTrusted;
  if (typeof hostCheck === "function") {
    return { trusted: Boolean((hostCheck as () => unknown).call(ctx)), basis: "host" };
  }
  const raw = env[ENV_TRUST_PROJECT];
  if (raw === undefined) return { trusted: false, basis: "default" };
  const parsed = parseEnvBoolean(raw);
  if (parsed === undefined) {
    return {
      trusted: false,
      basis: "env",
      warning: `firefox-bidi: invalid ${ENV_TRUST_PROJECT}=${JSON.stringify(raw)} (expected true, false, 1 or 0); project settings are ignored.`,
    };
  }
  return { trusted: parsed, basis: "env" };
}
