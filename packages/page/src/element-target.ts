/**
 * Turning a ref into an element that may be acted on, with the checks both paths share:
 * stale ref, not rendered, disabled, scrolled into view, occlusion hit test.
 * Dispatch mode then acts on the element; resolve mode hands it and its point to the caller.
 */
import { accessibleName } from "./accessible-name.js";
import {
  composedContains,
  composedParent,
  deepElementFromPoint,
  frameOffset,
  isElement,
  windowOf,
} from "./dom-realm.js";
import { describeForModel, interactiveRole } from "./element-facts.js";
import { WiringIndex } from "./listeners.js";
import { containerLabel } from "./overlays.js";
import { PageError } from "./page-error.js";
import type { PageState } from "./page-state.js";
import type { ElementSummary, ViewportPoint } from "./protocol.js";
import { roleOf } from "./roles.js";
import { isRendered, isRenderedUnless } from "./visibility.js";

/** Stale-ref errors suggest at most this many live elements with the same role and name. */
const MAX_STALE_SUGGESTIONS = 5;
const SUGGESTION_SELECTOR =
  "a[href], button, input:not([type=hidden]), select, textarea, summary, [role], [tabindex], [contenteditable], [onclick]";

export function summarize(state: PageState, el: Element): ElementSummary {
  const { role, name } = describeForModel(el);
  return { ref_id: state.registry.refFor(el, role, name), role, name };
}

/** The live element behind a ref, or a typed `stale_ref` error with suggestions. */
export function elementForRef(state: PageState, ref: number): Element {
  const found = state.registry.lookup(ref);
  if (found.kind === "live") return found.element;
  if (found.kind === "unknown") {
    throw new PageError(
      "stale_ref",
      `ref ${ref} is stale or unknown: no element on this page has it (refs come from the latest get_accessibility_tree of this page; the page may have navigated). Take a new snapshot and use a ref from it.`,
      { ref_id: ref, suggestions: [] },
    );
  }
  const { role, name } = found.record;
  const suggestions = suggestSimilar(state, role, name);
  const what = name ? `${role} ${JSON.stringify(name)}` : role;
  const hint =
    suggestions.length > 0
      ? ` Elements now on the page with the same role and name: ${suggestions.map((s) => `[${s.ref_id}]`).join(", ")}.`
      : " Take a new snapshot to see the current elements.";
  throw new PageError(
    "stale_ref",
    `ref ${ref} is stale: its element (${what}) is no longer on the page, so nothing was done.${hint}`,
    { ref_id: ref, was: { role, name }, suggestions },
  );
}

function suggestSimilar(state: PageState, role: string, name: string): ElementSummary[] {
  const wanted = name.toLowerCase();
  const found: ElementSummary[] = [];
  for (const el of Array.from(state.doc.querySelectorAll(SUGGESTION_SELECTOR))) {
    if (found.length >= MAX_STALE_SUGGESTIONS) break;
    const base = roleOf(el);
    const elRole = interactiveRole(el, base, false, false) ?? base;
    if (elRole !== role) continue;
    const elName = accessibleName(el, elRole).name;
    if (elName.toLowerCase() !== wanted || !isRendered(el)) continue;
    found.push({ ref_id: state.registry.refFor(el, elRole, elName), role: elRole, name: elName });
  }
  return found;
}

export interface Actionable {
  element: Element;
  /** Ref, role and name of the element (computed once; callers report it as the target). */
  summary: ElementSummary;
  /** Centre of the element in its own document's viewport. */
  local: ViewportPoint;
  /**
   * Centre in the viewport of the layer's own document (what trusted input needs: the caller
   * presses in that document's browsing context, the tab's or a frame's).
   */
  point: ViewportPoint;
}

export interface ActionableOptions {
  /** Run the occlusion hit test (skipped for x,y clicks and <select>). */
  occlusion: boolean;
  /** Click even if covered. */
  force: boolean;
  /** Refuse disabled elements. */
  enabled: boolean;
}

/** Scrolls the element into view and checks it can take the action; throws typed errors. */
export function makeActionable(state: PageState, el: Element, options: ActionableOptions): Actionable {
  const summary = summarize(state, el);
  const what = `[${summary.ref_id}] ${summary.role}${summary.name ? ` ${JSON.stringify(summary.name)}` : ""}`;
  // The tree prints a wired control under aria-hidden (a spinner's arrows): it can be used too.
  if (!isRenderedUnless(el, (hidden) => new WiringIndex(hidden.ownerDocument).isWired(hidden))) {
    throw new PageError(
      "not_visible",
      `${what} is on the page but hidden (not rendered), so it cannot be used now. Open the section or menu that shows it first, then take a new snapshot.`,
      { target: summary },
    );
  }
  if (options.enabled && (el.matches(":disabled") || el.closest("[aria-disabled=true]"))) {
    throw new PageError(
      "disabled",
      `${what} is disabled, so nothing was done. Fill in what the form still needs (required fields, a checkbox) and re-read the tree.`,
      { target: summary },
    );
  }
  const view = windowOf(el);
  const checkOcclusion =
    options.occlusion && !options.force && el.localName !== "select" && el.localName !== "option";
  // Measured once when no scroll is needed: the centre comes from the same read.
  const unscrolled = scrollIntoView(el, view, false);
  let local = centreOf(unscrolled ?? placementOf(el, view));
  const answering = checkOcclusion ? deepElementFromPoint(el.ownerDocument, local.x, local.y) : undefined;
  let hit = answering && !sameTarget(el, answering) ? answering : undefined;
  // Wholly in the viewport, yet its own ancestor answers at its centre: a scrolling box (a
  // dropdown's list) clips it there. Scrolling it into view in that box is what a person does.
  const clipped = !!answering && answering !== el && composedContains(answering, el);
  if ((hit || clipped) && unscrolled) {
    // Wholly in view yet covered: a sticky header or footer often sits over an element near
    // the edge; centring it (what a person would do) may uncover it.
    scrollIntoView(el, view, true);
    local = centreOf(placementOf(el, view));
    hit = coveringElement(el, local);
  }
  if (hit) {
    const cover = summarize(state, hit);
    const container = containerLabel(hit, true);
    const coverWhat = `${cover.role}${cover.name ? ` ${JSON.stringify(cover.name)}` : ""}`;
    throw new PageError(
      "occluded",
      `${what} is covered by ${coverWhat} (in ${container}) at its centre, so the click was not made. Close or finish that overlay first (it has ref [${cover.ref_id}]), or pass force: true to click anyway.`,
      {
        occluded: true,
        occludedBy: { ...cover, tag: hit.localName, container },
        target: summary,
      },
    );
  }
  const offset = frameOffset(el, state.doc.defaultView);
  const point = { x: Math.round(local.x + offset.x), y: Math.round(local.y + offset.y) };
  return { element: el, summary, local, point };
}

/** Where an element is: its rect and its view's size, read together. */
interface Placement {
  rect: DOMRect;
  viewWidth: number;
  viewHeight: number;
}

function placementOf(el: Element, view: Window): Placement {
  return { rect: el.getBoundingClientRect(), viewWidth: view.innerWidth, viewHeight: view.innerHeight };
}

/**
 * Centres the element in view unless it is already wholly visible in the top-level viewport
 * (or `always`), as a person would: scrolling what is already in view moves the page under the
 * user and costs a scroll and repaint on every click. Elements in frames are always scrolled
 * (the frame itself may be out of the top-level view). Returns the placement it measured when
 * it did not scroll, undefined when it scrolled.
 */
function scrollIntoView(el: Element, view: Window, always: boolean): Placement | undefined {
  if (!always && view === view.top) {
    const placement = placementOf(el, view);
    const { rect, viewWidth, viewHeight } = placement;
    const inView =
      rect.width > 0 &&
      rect.height > 0 &&
      rect.top >= 0 &&
      rect.left >= 0 &&
      rect.bottom <= viewHeight &&
      rect.right <= viewWidth;
    if (inView) return placement;
  }
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  return undefined;
}

/** Centre of the element in its own document's viewport, clamped into it. */
function centreOf({ rect, viewWidth, viewHeight }: Placement): ViewportPoint {
  return {
    x: clamp(rect.left + rect.width / 2, 0, viewWidth - 1),
    y: clamp(rect.top + rect.height / 2, 0, viewHeight - 1),
  };
}

/** What a click at `local` would hit instead of the element, if anything. */
function coveringElement(el: Element, local: ViewportPoint): Element | undefined {
  const hit = deepElementFromPoint(el.ownerDocument, local.x, local.y);
  return hit && !sameTarget(el, hit) ? hit : undefined;
}

function sameTarget(el: Element, hit: Element): boolean {
  if (composedContains(el, hit) || composedContains(hit, el)) return true;
  // A label (or something inside one) that activates this control counts as the control.
  for (let node: Node | null = hit; node; node = composedParent(node)) {
    if (isElement(node) && node.localName === "label") return (node as HTMLLabelElement).control === el;
  }
  return false;
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, value));
}
