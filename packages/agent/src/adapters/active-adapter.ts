/**
 * `getActiveAdapter(url)`: the one adapter for a URL. Only one adapter fires at a time, so the
 * prompt cost is fixed however many adapters exist. When several match (LinkedIn and LinkedIn
 * Jobs), the adapter whose matching pattern is most specific wins; ties go to catalog order.
 * The matcher gets the URL as text: it tests `instanceof Location`, which Node does not have.
 */
import type { SiteAdapter } from "./site-adapter.js";

export function getActiveAdapter(url: string, adapters: readonly SiteAdapter[]): SiteAdapter | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
  let best: SiteAdapter | undefined;
  let bestScore = -1;
  for (const adapter of adapters) {
    for (const compiled of adapter.patterns) {
      if (compiled.specificity > bestScore && compiled.pattern.includes(parsed.href)) {
        best = adapter;
        bestScore = compiled.specificity;
      }
    }
  }
  return best;
}
