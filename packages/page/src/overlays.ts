/**
 * Overlays and the containers that give an element its context.
 *
 * - An overlay is an open dialog, an aria-modal element, an open popover, or a fixed/absolute
 *   box stacked very high (portaled dropdowns, cookie banners). The tree prints overlays first.
 * - The topmost modal scopes text clicks (spec 000 overlay defense 1).
 * - `containerLabel` names the dialog/form/landmark around an element, for ambiguity payloads.
 */
import { accessibleName, boundedText } from "./accessible-name.js";
import { collapseWhitespace, composedParent, isElement, styleOf, truncate } from "./dom-realm.js";
import { nativeDom } from "./native-dom.js";
import { type AttributeNames, roleOf } from "./roles.js";
import { isRendered } from "./visibility.js";

/** z-index from which a positioned box counts as an overlay (dropdown portals use 1000+). */
export const OVERLAY_MIN_Z_INDEX = 1000;
/** A non-dialog overlay must cover this share of the viewport to scope clicks as a modal. */
const MODAL_MIN_VIEWPORT_SHARE = 0.5;
const CONTAINER_NAME_MAX_CHARS = 60;

const DIALOG_SELECTOR = "dialog[open], [aria-modal=true], [role=dialog], [role=alertdialog]";
const CONTAINER_SELECTOR =
  "dialog, [role=dialog], [role=alertdialog], form, [role=form], nav, [role=navigation], main, [role=main], header, [role=banner], footer, [role=contentinfo], aside, [role=complementary], section[aria-label], section[aria-labelledby], [role=region], [role=search], [role=toolbar], [role=menu], [role=listbox], fieldset, [role=group][aria-label], [role=radiogroup]";

export function isDialogLike(el: Element): boolean {
  const role = roleOf(el);
  if (role === "dialog" || role === "alertdialog")
    return el.localName !== "dialog" || el.hasAttribute("open");
  return el.getAttribute("aria-modal") === "true";
}

export function isOverlayContainer(
  el: Element,
  style: CSSStyleDeclaration,
  width: number,
  height: number,
  names?: AttributeNames,
  tag?: string,
): boolean {
  const maybeDialog =
    !names ||
    names.includes("role") ||
    names.includes("aria-modal") ||
    (tag ?? nativeDom().localName(el)) === "dialog";
  if (maybeDialog && isDialogLike(el)) return true;
  if (names ? names.includes("popover") : el.hasAttribute("popover")) {
    try {
      if (el.matches(":popover-open")) return true;
    } catch {
      // :popover-open unsupported: fall through to the stacking test.
    }
  }
  const dom = nativeDom();
  const position = dom.getPropertyValue(style, "position");
  if (position !== "fixed" && position !== "absolute") return false;
  const z = Number.parseInt(dom.getPropertyValue(style, "z-index"), 10);
  return Number.isFinite(z) && z >= OVERLAY_MIN_Z_INDEX && width > 0 && height > 0;
}

/** The modal the user would be looking at now, or null. Scopes text clicks. */
export function findTopmostModal(doc: Document): Element | null {
  const view = doc.defaultView;
  if (!view) return null;
  const candidates: Element[] = [];
  for (const el of Array.from(doc.querySelectorAll(DIALOG_SELECTOR))) {
    if (el.localName === "dialog" && !el.hasAttribute("open")) continue;
    if (isRendered(el)) candidates.push(el);
  }
  // Common overlay patterns without ARIA: a high fixed layer covering most of the viewport.
  const viewportArea = view.innerWidth * view.innerHeight;
  for (const el of Array.from(doc.body?.children ?? [])) {
    const style = styleOf(el);
    if (style.position !== "fixed") continue;
    const z = Number.parseInt(style.zIndex, 10);
    if (!Number.isFinite(z) || z < OVERLAY_MIN_Z_INDEX) continue;
    const rect = el.getBoundingClientRect();
    if (
      rect.width * rect.height >= viewportArea * MODAL_MIN_VIEWPORT_SHARE &&
      el.querySelector("button, a[href], input, [role=button]")
    ) {
      candidates.push(el);
    }
  }
  if (candidates.length === 0) return null;
  // Topmost: the last candidate that wins a hit test at its own centre.
  for (let i = candidates.length - 1; i >= 0; i--) {
    const el = candidates[i]!;
    const rect = el.getBoundingClientRect();
    const hit = doc.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
    if (hit && (el === hit || el.contains(hit))) return el;
  }
  return candidates[candidates.length - 1] ?? null;
}

/** `dialog "Create tag"`, `form "Login"`, `navigation "Main"`. */
export function describeContainer(el: Element): string {
  let role = roleOf(el);
  if (!role) role = el.localName === "section" ? "region" : el.localName;
  let name = accessibleName(el, role).name;
  if (!name && (role === "dialog" || role === "alertdialog" || role === "form" || role === "region")) {
    const heading = el.querySelector("h1, h2, h3, h4, h5, h6, legend, [role=heading]");
    if (heading) name = boundedText(heading, CONTAINER_NAME_MAX_CHARS);
  }
  if (!name && role === "form") name = el.getAttribute("name") ?? el.id ?? "";
  name = truncate(collapseWhitespace(name), CONTAINER_NAME_MAX_CHARS);
  return name ? `${role} ${JSON.stringify(name)}` : role;
}

/** The nearest dialog/form/landmark around `el` (crossing shadow roots), described. */
export function containerLabel(el: Element, includeSelf = false): string {
  for (let current = includeSelf ? el : composedParent(el); current; current = composedParent(current)) {
    if (isElement(current) && current.matches(CONTAINER_SELECTOR)) return describeContainer(current);
  }
  return "page";
}
