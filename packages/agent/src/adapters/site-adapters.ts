/**
 * Site adapters: a few sentences of guidance for sites whose UI trips agents up (spec 000's 58
 * adapters across code, productivity, social, messaging, commerce, travel, finance, news and job
 * sites). One adapter per URL, injected once per site, so prompt cost stays fixed however many
 * adapters exist; the agent re-injects when navigation reaches another adapted site. Each adapter
 * is one data file under `adapters/sites/`.
 */
import { getActiveAdapter } from "./active-adapter.js";
import { SITE_ADAPTERS } from "./catalog.js";
import type { SiteAdapter } from "./site-adapter.js";

export { getActiveAdapter } from "./active-adapter.js";
export { SITE_ADAPTERS } from "./catalog.js";
export {
  type AdapterCategory,
  defineSiteAdapter,
  FINANCE_WARNING,
  type SiteAdapter,
  type SiteAdapterSpec,
} from "./site-adapter.js";

/** The adapter for this URL, if any (the catalog by default). */
export function adapterFor(
  url: string,
  adapters: readonly SiteAdapter[] = SITE_ADAPTERS,
): SiteAdapter | undefined {
  return getActiveAdapter(url, adapters);
}
