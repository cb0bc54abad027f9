/**
 * download_resource_from_page's first half in the add-on: the absolute URL behind an element
 * (a link's href, an image's or media element's current source, a download button's data-href).
 */
import type { ResourceUrlMessage } from "./content-messages.js";
import { lookupElement } from "./element-lookup.js";

const RESOURCE_ELEMENTS =
  "a[href], area[href], img, video, audio, source, embed, object, [src], [href], [data-href], [data-url], button";

function rawUrl(el: Element): string {
  const media = el as Partial<HTMLImageElement & HTMLMediaElement & HTMLAnchorElement>;
  return (
    media.currentSrc ||
    el.getAttribute("src") ||
    el.getAttribute("href") ||
    el.getAttribute("data-href") ||
    el.getAttribute("data-url") ||
    el.closest("a[href]")?.getAttribute("href") ||
    ""
  );
}

export async function resourceUrl(message: ResourceUrlMessage): Promise<Record<string, unknown>> {
  const found = await lookupElement(
    message.target,
    RESOURCE_ELEMENTS,
    "a link, image, media element or download button",
  );
  if ("error" in found) return { success: false, error: found.error };
  const raw = rawUrl(found.element);
  if (!raw) {
    return {
      success: false,
      error: "That element has no URL (no href or src); point at a link, image or media element.",
    };
  }
  try {
    return { success: true, url: new URL(raw, document.baseURI).href };
  } catch {
    return { success: false, error: `The element's URL ${JSON.stringify(raw)} is not a valid URL.` };
  }
}
