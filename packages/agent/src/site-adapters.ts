/**
 * Site adapters: a few lines of guidance for sites whose UI trips agents up. One adapter per
 * URL (the first match wins) and it is injected once per site, so prompt cost stays fixed
 * however many adapters exist. Finance adapters carry the extra safety warning of spec 000.
 */

export interface SiteAdapter {
  id: string;
  /** Matched against the hostname. */
  host: RegExp;
  guidance: string;
}

const MONEY_WARNING =
  "Money moves here: never confirm a payment or transfer the user did not state exactly; clarify first.";

export const SITE_ADAPTERS: readonly SiteAdapter[] = [
  {
    id: "github",
    host: /(^|\.)github\.com$/,
    guidance:
      "GitHub: dialogs (create tag, merge) cover the page; finish them first. Use the search box (press_keys '/') to find repos and files.",
  },
  {
    id: "stripe",
    host: /(^|\.)stripe\.com$/,
    guidance: `Stripe dashboard: billing period and currency are comboboxes, set them with set_field submit:true and re-read the tree. ${MONEY_WARNING}`,
  },
  {
    id: "google-docs",
    host: /^docs\.google\.com$/,
    guidance:
      "Google Docs: the document is a canvas; type with press_keys after clicking into it, read with read_page.",
  },
  {
    id: "gmail",
    host: /^mail\.google\.com$/,
    guidance:
      "Gmail: compose opens a dialog; fill To, Subject, body, then Send once. Confirm the 'Message sent' notice.",
  },
  {
    id: "amazon",
    host: /(^|\.)amazon\.[a-z.]+$/,
    guidance: `Amazon: stop before 'Place your order' unless the user asked to buy. ${MONEY_WARNING}`,
  },
  {
    id: "paypal",
    host: /(^|\.)paypal\.com$/,
    guidance: `PayPal: ${MONEY_WARNING}`,
  },
];

/** The adapter for this URL, if any. */
export function adapterFor(
  url: string,
  adapters: readonly SiteAdapter[] = SITE_ADAPTERS,
): SiteAdapter | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  return adapters.find((adapter) => adapter.host.test(host));
}
