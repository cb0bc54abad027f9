/**
 * scroll: the page (direction/amount or to top/bottom), an element into view (ref_id alone), or
 * inside a scrollable element (ref_id with to/direction/amount: a textarea, a log, a list box).
 *
 * Scrolling is done with the scroll APIs on both ports, not with trusted wheel input: the page
 * sees the same `scroll` events either way (the browser fires them for programmatic scrolls
 * too), and the position lands exactly where asked, which a wheel's line steps do not promise.
 *
 * Every answer says where the scroll stands afterwards and whether an end was reached, so the
 * model knows when to stop scrolling.
 */
import type { PageCallParams } from "@webbrain/protocol";
import { styleOf } from "../dom-realm.js";
import { summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { PageState } from "../page-state.js";
import type { Answer } from "../protocol.js";
import { scopeElement } from "./reading-actions.js";

/** Share of the viewport (or of the element's box) one step scrolls when no amount is given. */
const STEP_SHARE = 0.8;
/** Rounding slack when deciding that an end is reached, px. */
const END_SLACK_PX = 1;

type Direction = NonNullable<PageCallParams<"scroll">["direction"]>;

interface ScrollRequest {
  to: "top" | "bottom" | undefined;
  direction: Direction;
  amount: number | undefined;
}

function scrollRequest(p: PageCallParams<"scroll">): ScrollRequest {
  return { to: p.to, direction: p.direction ?? "down", amount: p.amount };
}

/** Offsets one step moves: `amount` px, else a share of `page` (the box that is scrolled). */
function stepOffsets(request: ScrollRequest, page: { width: number; height: number }) {
  const { direction, amount } = request;
  const horizontal = direction === "left" || direction === "right";
  const step = amount ?? Math.round((horizontal ? page.width : page.height) * STEP_SHARE);
  const sign = direction === "up" || direction === "left" ? -1 : 1;
  return horizontal ? { left: sign * step, top: 0 } : { left: 0, top: sign * step };
}

export function scroll(state: PageState, p: PageCallParams<"scroll">): Answer<"scroll"> {
  const view = state.doc.defaultView;
  if (!view) throw new PageError("internal", "scroll: the document has no window.");
  const inside = p.to !== undefined || p.direction !== undefined || p.amount !== undefined;
  if (p.ref_id !== undefined || p.selector) {
    const el = scopeElement(state, p, "scroll");
    if (inside) return scrollInside(state, el, scrollRequest(p));
    el.scrollIntoView({ block: "center", behavior: "instant" });
  } else {
    const request = scrollRequest(p);
    if (request.to === "top") view.scrollTo({ top: 0, behavior: "instant" });
    else if (request.to === "bottom")
      view.scrollTo({ top: state.doc.documentElement.scrollHeight, behavior: "instant" });
    else
      view.scrollBy({
        ...stepOffsets(request, { width: view.innerWidth, height: view.innerHeight }),
        behavior: "instant",
      });
  }
  const max = state.doc.documentElement.scrollHeight - view.innerHeight;
  return {
    details: {
      scroll_x: Math.round(view.scrollX),
      scroll_y: Math.round(view.scrollY),
      at_top: view.scrollY <= 0,
      at_bottom: view.scrollY >= max - END_SLACK_PX,
    },
  };
}

/** Can the element's own content scroll (overflow that scrolls, and more content than box)? */
function scrollsItself(el: Element): boolean {
  const overflows =
    el.scrollHeight > el.clientHeight + END_SLACK_PX || el.scrollWidth > el.clientWidth + END_SLACK_PX;
  if (!overflows) return false;
  if (el.localName === "textarea") return true;
  const style = styleOf(el);
  return /(auto|scroll)/.test(`${style.overflowY} ${style.overflowX}`);
}

/** The element, or the nearest ancestor below the page's own scroller, whose content scrolls. */
function scrollContainer(state: PageState, el: Element): Element | undefined {
  const root = state.doc.scrollingElement ?? state.doc.documentElement;
  for (
    let node: Element | null = el;
    node && node !== root && node !== state.doc.body;
    node = node.parentElement
  ) {
    if (scrollsItself(node)) return node;
  }
  return undefined;
}

function scrollInside(state: PageState, el: Element, request: ScrollRequest): Answer<"scroll"> {
  const box = scrollContainer(state, el);
  if (!box) {
    const what = summarize(state, el);
    throw new PageError(
      "not_found",
      `scroll: [${what.ref_id}] ${what.role} has no scrollable content (it and its containers show all of it). Scroll the page instead (no ref_id), or pick the element that has a scrollbar.`,
      { target: what },
    );
  }
  if (request.to === "top") box.scrollTop = 0;
  else if (request.to === "bottom") box.scrollTop = box.scrollHeight;
  else {
    const step = stepOffsets(request, { width: box.clientWidth, height: box.clientHeight });
    box.scrollLeft += step.left;
    box.scrollTop += step.top;
  }
  // Firefox fires no `scroll` at a disabled form control (not even for a person's wheel), so a
  // page that unlocks a form once its disabled agreement box is read to the end never would.
  if (box.matches(":disabled")) box.dispatchEvent(new Event("scroll"));
  const maxTop = box.scrollHeight - box.clientHeight;
  return {
    details: {
      scrolled: summarize(state, box),
      scroll_top: Math.round(box.scrollTop),
      scroll_left: Math.round(box.scrollLeft),
      scroll_height: box.scrollHeight,
      client_height: box.clientHeight,
      at_top: box.scrollTop <= 0,
      at_bottom: box.scrollTop >= maxTop - END_SLACK_PX,
    },
  };
}
