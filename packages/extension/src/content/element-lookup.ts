/**
 * Finds the element a content-script tool means: a ref from this document's tree (matched
 * through the page layer's `refs_of`, which reads refs without handing out new ones) or a CSS
 * selector. Only elements matching `candidates` are considered, so a ref that names something
 * else (a button where a file input is needed) answers a sentence instead of acting on it.
 */
import type { ElementTarget } from "./content-messages.js";
import { PAGE_SCRIPT_MISSING, pageScript } from "./page-script-api.js";

export type Lookup = { element: Element } | { error: string };

export async function lookupElement(
  target: ElementTarget,
  candidates: string,
  what: string,
): Promise<Lookup> {
  if (target.ref_id !== undefined && target.ref_id !== null && target.ref_id !== "") {
    const api = pageScript();
    if (!api) return { error: PAGE_SCRIPT_MISSING };
    const elements = Array.from(document.querySelectorAll(candidates));
    const answer = await api.handle("refs_of", { selector: candidates });
    const refs = answer.success && Array.isArray(answer.details.refs) ? answer.details.refs : [];
    const index = refs.findIndex((ref) => ref !== null && String(ref) === String(target.ref_id));
    const element = index >= 0 ? elements[index] : undefined;
    if (!element) {
      return {
        error: `ref ${target.ref_id} is not ${what} on this page (or it is stale: the page changed). Take a new snapshot and use the ref of ${what}.`,
      };
    }
    return { element };
  }
  if (typeof target.selector === "string" && target.selector) {
    let element: Element | null;
    try {
      element = document.querySelector(target.selector);
    } catch {
      return { error: `${JSON.stringify(target.selector)} is not a valid CSS selector.` };
    }
    if (!element) return { error: `No element matches ${JSON.stringify(target.selector)}.` };
    if (!element.matches(candidates)) {
      return { error: `${JSON.stringify(target.selector)} matches a <${element.localName}>, not ${what}.` };
    }
    return { element };
  }
  return { error: `Say which element: pass ref_id (from the tree) or selector (${what}).` };
}
