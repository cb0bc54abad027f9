/**
 * Fields whose typed value is a secret: what the page layer says about them so that nothing
 * downstream (traces, saved workflows, logs, the add-on's journal) keeps the value.
 *
 * A field is secret when it is a password input, or when the page marks it as one with an
 * `autocomplete` token for a credential (current-password, new-password, one-time-code) or a
 * card's security code or number. Type results for such a field say `secret: true` and show the
 * value as SECRET_MASK, never the text itself; the agent reads `secret` to keep the value out of
 * what it records.
 */
import { isInput } from "./dom-realm.js";

/** What a secret field's value reads as in results (the same mask form reading uses). */
export const SECRET_MASK = "•••";

const SECRET_AUTOCOMPLETE_TOKENS: ReadonlySet<string> = new Set([
  "current-password",
  "new-password",
  "one-time-code",
  "cc-csc",
  "cc-number",
]);

export function isSecretField(el: Element): boolean {
  if (isInput(el) && el.type === "password") return true;
  const tokens = (el.getAttribute("autocomplete") ?? "").toLowerCase().split(/\s+/);
  return tokens.some((token) => SECRET_AUTOCOMPLETE_TOKENS.has(token));
}

/** `text` as a result may show it: masked when the field is secret. */
export function shownValue(el: Element, text: string): string {
  return isSecretField(el) ? (text ? SECRET_MASK : "") : text;
}
