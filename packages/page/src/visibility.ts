/**
 * What the tree and the actions treat as hidden. Skipped, as spec 000 lists: display:none,
 * visibility:hidden, aria-hidden=true, zero-size boxes; also the `hidden` attribute, closed
 * <details> content and the "visually hidden" clip pattern (1px boxes with overflow hidden).
 * Opacity 0 is NOT hidden: styled checkboxes keep a transparent real input on top.
 */
import { styleOf } from "./dom-realm.js";
import { nativeDom } from "./native-dom.js";

/** A box this small with overflow hidden is the screen-reader-only pattern, not content. */
const VISUALLY_HIDDEN_MAX_PX = 1;

/** The element's own box shows nothing (descendants may still show: visibility can be undone). */
export function ownBoxHidden(style: CSSStyleDeclaration, width: number, height: number): boolean {
  const visibility = nativeDom().getPropertyValue(style, "visibility");
  if (visibility === "hidden" || visibility === "collapse") return true;
  if (width === 0 && height === 0) return true;
  return (
    width <= VISUALLY_HIDDEN_MAX_PX &&
    height <= VISUALLY_HIDDEN_MAX_PX &&
    nativeDom().getPropertyValue(style, "overflow") !== "visible"
  );
}

/** Descendants of a box with overflow clipping and (almost) no size cannot show either. */
export function clipsEverything(style: CSSStyleDeclaration, width: number, height: number): boolean {
  if (width > VISUALLY_HIDDEN_MAX_PX && height > VISUALLY_HIDDEN_MAX_PX) return false;
  return nativeDom().getPropertyValue(style, "overflow") !== "visible";
}

/** For actions: is this element rendered and visible at all (anywhere, not only in the viewport)? */
export function isRendered(el: Element): boolean {
  return isRenderedUnless(el, undefined);
}

/** isRendered, where `shownAnyway` may let an element under aria-hidden count (one the page wired). */
export function isRenderedUnless(el: Element, shownAnyway: ((el: Element) => boolean) | undefined): boolean {
  if (el.closest("[aria-hidden=true]") && !shownAnyway?.(el)) return false;
  const check = (el as Element & { checkVisibility?: (o: object) => boolean }).checkVisibility;
  if (check && !check.call(el, { visibilityProperty: true })) return false;
  const rect = el.getBoundingClientRect();
  if (rect.width === 0 && rect.height === 0) {
    return styleOf(el).display === "contents";
  }
  return true;
}

export function intersectsViewport(rect: DOMRect, width: number, height: number): boolean {
  return rect.bottom > 0 && rect.right > 0 && rect.top < height && rect.left < width;
}
