/**
 * The agent's modes and the provider tiers: the one definition every realm uses (the agent's
 * tool selection, the add-on's sidebar and settings, the runner's flags, saved jobs and chats).
 *
 * - Ask is read-only, Act changes pages, Dev adds developer tools on top of Act.
 * - A tier says how large a model is, so how many tools it is given (Compact < Mid < Full).
 * Both lists are in ascending order of strength: code that ranks modes or tiers uses the index.
 */

export const MODES = ["ask", "act", "dev"] as const;
export type Mode = (typeof MODES)[number];

export const TIERS = ["compact", "mid", "full"] as const;
export type Tier = (typeof TIERS)[number];

/**
 * Whether a mode runs on a tier: Dev needs a Mid or Full model, so Dev on Compact is refused
 * (spec 000), never quietly narrowed to fewer tools.
 */
export function modeFitsTier(mode: Mode, tier: Tier): boolean {
  return !(mode === "dev" && tier === "compact");
}

/** A value read from storage, a file or the model: is it one of the modes? */
export function isMode(value: unknown): value is Mode {
  return (MODES as readonly unknown[]).includes(value);
}

/** A value read from storage, a file or the model: is it one of the tiers? */
export function isTier(value: unknown): value is Tier {
  return (TIERS as readonly unknown[]).includes(value);
}

/** How strong a mode is: Ask 0 < Act 1 < Dev 2 (a scheduled task never runs above its chat's). */
export function modeRank(mode: Mode): number {
  return MODES.indexOf(mode);
}

/** How large a tier is: Compact 0 < Mid 1 < Full 2 (a tool offered from Mid is offered on Full). */
export function tierRank(tier: Tier): number {
  return TIERS.indexOf(tier);
}

/**
 * The values as an error message lists them, from the lists above so a message never names a
 * mode or tier that is not one: `"ask", "act" or "dev"`, or unquoted `compact, mid or full`.
 */
export function valuesForMessage(values: readonly string[], quoted = true): string {
  const words = values.map((value) => (quoted ? JSON.stringify(value) : value));
  const last = words.pop();
  if (last === undefined) return "";
  return words.length === 0 ? last : `${words.join(", ")} or ${last}`;
}
