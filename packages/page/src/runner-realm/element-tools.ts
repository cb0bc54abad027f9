/** Element lookups the runner calls with handles: the URL behind an element, a selector's element. */

/** The URL behind an element (link, image, media, download button), absolute; "" when none. */
export function resourceUrl(el: Element): string {
  const withUrl = el as Element & { currentSrc?: string; src?: string; href?: string };
  const raw =
    withUrl.currentSrc ||
    withUrl.src ||
    withUrl.href ||
    el.getAttribute("data-href") ||
    el.getAttribute("data-url") ||
    (el.closest("a[href]") as HTMLAnchorElement | null)?.href ||
    "";
  return raw ? new URL(raw, document.baseURI).href : "";
}

/** The first element a CSS selector matches, or null (an invalid selector answers null too). */
export function locate(selector: string): Element | null {
  try {
    return document.querySelector(selector);
  } catch {
    return null;
  }
}
