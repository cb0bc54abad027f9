/**
 * Whether a trusted click the caller pressed followed a link: a click on `<a href>` that the page
 * did not cancel and that leaves the document (not `#x` in the same page, not `javascript:`). The
 * runner's press cannot see that from outside: a link whose response is a download starts its
 * navigation (and the download) a moment after the press returns, so the runner waits for it
 * only when the page says the click went that way (press-and-verify.ts), and never after a link
 * a script handled (a client-side router cancels the click and pushes a state).
 *
 * Armed at resolve time for an element inside a link, read and disarmed by `verify_effect`. The
 * add-on's content script judges its synthetic clicks by the same rule (`followedLink`).
 */

/** Where a followed link goes: this document is left (a page or a download), or a new tab opens. */
export type FollowedLink = "document" | "tab";

export interface LinkClickWatch {
  /** What the click did, once it was dispatched; undefined: no click reached the link, or it was cancelled. */
  followed(): FollowedLink | undefined;
  stop(): void;
}

function opensNewTab(link: HTMLAnchorElement): boolean {
  const target = link.target.toLowerCase();
  return (
    target !== "" &&
    target !== "_self" &&
    target !== "_parent" &&
    target !== "_top" &&
    !link.hasAttribute("download")
  );
}

function leavesDocument(link: HTMLAnchorElement, doc: Document): boolean {
  let url: URL;
  try {
    url = new URL(link.href, doc.URL);
  } catch {
    return false;
  }
  if (url.protocol === "javascript:") return false;
  const sameDocument = url.hash !== "" && url.href.split("#")[0] === doc.URL.split("#")[0];
  return !sameDocument || link.hasAttribute("download");
}

/** Where a dispatched click on `link` went: undefined when the page cancelled it or it stays in the document. */
export function followedLink(event: Event, link: HTMLAnchorElement, doc: Document): FollowedLink | undefined {
  if (event.defaultPrevented) return undefined;
  if (opensNewTab(link)) return "tab";
  return leavesDocument(link, doc) ? "document" : undefined;
}

/** Watches the next click on the link around `el` (undefined when `el` is in none). */
export function watchLinkClick(doc: Document, el: Element): LinkClickWatch | undefined {
  const link = el.closest("a[href]") as HTMLAnchorElement | null;
  const view = doc.defaultView;
  if (!link || !view) return undefined;
  let clicked: Event | undefined;
  const onClick = (event: Event) => {
    if (event.composedPath().includes(link)) clicked = event;
  };
  view.addEventListener("click", onClick, { capture: true });
  const stop = () => view.removeEventListener("click", onClick, { capture: true });
  return {
    // Read after the dispatch ended: every handler, the page's last ones included, has run.
    followed: () => (clicked ? followedLink(clicked, link, doc) : undefined),
    stop,
  };
}
