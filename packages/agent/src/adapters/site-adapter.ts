/**
 * What a site adapter is: a few sentences of guidance for one site whose UI costs an agent
 * dead-end calls to discover, and the URL patterns it applies to. Each adapter is one file under
 * `sites/`, written as data with `defineSiteAdapter`; `catalog.ts` lists them (a test fails when
 * a file is missing from it).
 *
 * Invariants:
 * - Patterns are WebExtension match patterns (`*://*.github.com/*`), parsed once here, so a bad
 *   pattern fails at load (and in the catalog test), never silently at match time.
 * - `examples` are part of the adapter: the catalog test checks every adapter matches its own
 *   `match` URLs and none of its `noMatch` URLs, so patterns are tested one by one.
 * - Finance adapters get the extra safety warning spec 000 asks for, appended here once.
 * - Guidance describes the shape of a site (where things are, what is a canvas or a picker),
 *   not selectors: selectors rot, shapes last.
 */
import { MatchPattern } from "@webext-core/match-patterns";

export type AdapterCategory =
  | "code"
  | "productivity"
  | "social"
  | "messaging"
  | "commerce"
  | "travel"
  | "finance"
  | "news"
  | "jobs";

export interface SiteAdapterSpec {
  /** Stable id (the file name), kept per conversation to inject each site's guidance once. */
  id: string;
  /** The site's name as a person says it; the guidance line starts with it. */
  name: string;
  category: AdapterCategory;
  /** WebExtension match patterns; the most specific matching pattern over all adapters wins. */
  matches: readonly string[];
  /** The guidance itself, without the name. */
  advice: string;
  /** URLs the patterns must match and must not match (checked by the catalog test). */
  examples: { match: readonly string[]; noMatch?: readonly string[] };
}

export interface SiteAdapter extends SiteAdapterSpec {
  /** What the model reads: `Name: advice` plus, for finance, the safety warning. */
  guidance: string;
  /** The parsed patterns with their specificity, in `matches` order. */
  patterns: readonly CompiledPattern[];
}

export interface CompiledPattern {
  source: string;
  pattern: MatchPattern;
  /** Literal characters in the pattern: a longer literal host and path is more specific. */
  specificity: number;
}

/** Spec 000: finance adapters carry an extra safety warning. */
export const FINANCE_WARNING =
  "Money moves here: never start a payment, transfer, trade or withdrawal the user did not state exactly (recipient and amount) in this conversation, read every confirmation back to the user before the final click, and hand 2FA prompts and wallet signatures to the user.";

export function compilePattern(source: string): CompiledPattern {
  return { source, pattern: new MatchPattern(source), specificity: source.replace(/\*/g, "").length };
}

export function defineSiteAdapter(spec: SiteAdapterSpec): SiteAdapter {
  const warning = spec.category === "finance" ? ` ${FINANCE_WARNING}` : "";
  return {
    ...spec,
    guidance: `${spec.name}: ${spec.advice}${warning}`,
    patterns: spec.matches.map(compilePattern),
  };
}
