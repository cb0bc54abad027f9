/**
 * Every string the add-on shows goes through `t(key, ...substitutions)`: Firefox's
 * `browser.i18n.getMessage` picks the user's language from `_locales/`, and outside Firefox
 * (Node unit tests) the English catalog answers. HTML carries its strings as
 * `data-i18n` (text), `data-i18n-placeholder`, `data-i18n-title` and `data-i18n-aria-label`
 * attributes, filled by `localizeDocument` before the page is shown.
 *
 * The English catalog (ui-strings.ts) is the source of truth: the build writes
 * `_locales/en/messages.json` from it, and a test checks every other locale has every key with
 * the same `$1`... substitutions.
 */
import { EN_MESSAGES, type UiKey } from "./ui-strings.js";

export type { UiKey } from "./ui-strings.js";

interface I18nApi {
  getMessage(name: string, substitutions?: string | string[]): string;
  getUILanguage(): string;
}

function i18nApi(): I18nApi | undefined {
  const api = (globalThis as { browser?: { i18n?: I18nApi } }).browser?.i18n;
  return api && typeof api.getMessage === "function" ? api : undefined;
}

/** `$1`...`$9` replaced by the substitutions, as browser.i18n does. */
export function substitute(template: string, substitutions: readonly string[]): string {
  return template.replace(/\$(\d)/g, (whole, digit: string) => substitutions[Number(digit) - 1] ?? whole);
}

export function t(key: UiKey, ...substitutions: (string | number)[]): string {
  const subs = substitutions.map(String);
  const translated = i18nApi()?.getMessage(key, subs);
  return translated || substitute(EN_MESSAGES[key], subs);
}

/** The browser's UI language (e.g. "de", "zh-CN"); "en" outside Firefox. */
export function uiLanguage(): string {
  return i18nApi()?.getUILanguage() || "en";
}

const ATTRIBUTES: readonly [string, string][] = [
  ["data-i18n-placeholder", "placeholder"],
  ["data-i18n-title", "title"],
  ["data-i18n-aria-label", "aria-label"],
];

function isKey(key: string | null): key is UiKey {
  return key !== null && key in EN_MESSAGES;
}

/** Fill every marked element of `root` with its string in the user's language. */
export function localizeDocument(root: Document): void {
  root.documentElement.lang = uiLanguage();
  for (const node of root.querySelectorAll<HTMLElement>("[data-i18n]")) {
    const key = node.getAttribute("data-i18n");
    if (isKey(key)) node.textContent = t(key);
  }
  for (const [data, attribute] of ATTRIBUTES) {
    for (const node of root.querySelectorAll<HTMLElement>(`[${data}]`)) {
      const key = node.getAttribute(data);
      if (isKey(key)) node.setAttribute(attribute, t(key));
    }
  }
}

/** The system-prompt line that makes the model answer in the user's language. */
export function languageInstruction(language: string): string {
  return `The user's Firefox is set to the language "${language}". Answer in the language the user writes in; when that is unclear, answer in ${language}.`;
}
