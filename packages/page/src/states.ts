/**
 * States a person sees that the page never declared in ARIA: a disclosure or tree node whose
 * owned list is hidden (collapsed) or shown (expanded), the selected or current item of a list,
 * tab strip or calendar (by its class: `selected`, `active`, `ui-state-active`...), the checked
 * state of a custom checkbox, and a disabled look (`disabled` class).
 *
 * Invariants:
 * - Only adds words ARIA did not give: an element with aria-expanded / aria-selected /
 *   aria-checked / aria-disabled keeps what stateWords printed from them.
 * - Reads are bounded: one class read, at most one sibling or child list and one style read,
 *   and only for elements that get a ref.
 * - A link with an href is a way somewhere, not a disclosure: no expanded/collapsed for it.
 */
import { nativeDom, type StyleReader } from "./native-dom.js";
import type { AttributeNames } from "./roles.js";

const SELECTED_CLASS =
  /(?:^|\s)(?:selected|is-selected|active|is-active|current|ui-state-active|ui-selected)(?:\s|$)/i;
const CHECKED_CLASS = /(?:^|\s)(?:checked|is-checked|ui-checkboxradio-checked)(?:\s|$)/i;
const DISABLED_CLASS = /(?:^|\s)(?:disabled|is-disabled|ui-state-disabled)(?:\s|$)/i;
/** The thumb of a script-drawn slider (jQuery UI, noUiSlider, most hand-rolled ones). */
const SLIDER_HANDLE_CLASS = /(?:^|\s)(?:ui-slider-handle|slider-handle|slider-thumb|noUi-handle)(?:\s|$)/i;
const CHECKBOX_CLASS = /(?:^|\s)(?:checkbox|check|custom-checkbox|toggle)(?:\s|$)/i;
/** Containers a toggle can own: the next sibling or, in a tree, the list inside its item. */
const OWNED_LIST_TAGS: ReadonlySet<string> = new Set(["ul", "ol", "dl"]);
const OWNED_BLOCK_TAGS: ReadonlySet<string> = new Set(["ul", "ol", "dl", "div", "section", "table"]);
/**
 * Roles that hold content rather than toggle it: a tab panel followed by its hidden siblings
 * (jQuery UI's tabs) is not a collapsed disclosure.
 */
const CONTAINER_ROLES: ReadonlySet<string> = new Set([
  "tabpanel",
  "dialog",
  "alertdialog",
  "region",
  "group",
  "tablist",
  "menu",
  "listbox",
  "tree",
  "grid",
]);
/** Roles whose selection shows as `selected` (a tab, an option, a day in a grid...). */
const SELECTABLE_ROLES: ReadonlySet<string> = new Set([
  "clickable",
  "tab",
  "option",
  "treeitem",
  "gridcell",
  "menuitem",
  "link",
  "button",
  "listitem",
]);

export interface InferredFacts {
  /** A better role than "clickable" when the element is a custom checkbox. */
  role?: string;
  words: string[];
}

/** A handle a person drags (a resizable box's edge or corner), by the class libraries give it. */
const DRAG_HANDLE_CLASS = /(?:^|\s)(?:ui-resizable-handle|resize-handle|resizer|drag-handle)(?:\s|$)/;

export function isDragHandleClass(className: string): boolean {
  return DRAG_HANDLE_CLASS.test(className);
}

/** A slider's thumb or a drag handle: coloured to be seen, its colour says nothing. */
export function isHandleClass(className: string): boolean {
  return SLIDER_HANDLE_CLASS.test(className) || DRAG_HANDLE_CLASS.test(className);
}

/** Extra state words for an element with a ref; `printed` are the words ARIA already gave. */
export function inferredStates(
  el: Element,
  role: string,
  tag: string,
  names: AttributeNames,
  printed: readonly string[],
  styleOf: StyleReader,
): InferredFacts {
  const words: string[] = [];
  let newRole: string | undefined;
  const dom = nativeDom();
  const className = names.includes("class") ? (dom.getAttribute(el, "class") ?? "") : "";
  const has = (word: string) => printed.includes(word) || words.includes(word);

  if (className) {
    if (role === "clickable" && CHECKBOX_CLASS.test(className)) newRole = "checkbox";
    if (SLIDER_HANDLE_CLASS.test(className) && !names.includes("aria-valuenow")) {
      newRole = "slider";
      const position = handlePosition(el);
      if (position) words.push(position);
    }
    const effectiveRole = newRole ?? role;
    if ((effectiveRole === "checkbox" || effectiveRole === "switch") && CHECKED_CLASS.test(className)) {
      if (!has("checked") && !names.includes("aria-checked")) words.push("checked");
    } else if (
      SELECTABLE_ROLES.has(effectiveRole) &&
      !names.includes("aria-selected") &&
      SELECTED_CLASS.test(className) &&
      !has("selected")
    ) {
      words.push("selected");
    }
    if (DISABLED_CLASS.test(className) && !has("disabled")) words.push("disabled");
  }
  if (names.includes("aria-current")) {
    const current = dom.getAttribute(el, "aria-current");
    if (current && current !== "false" && !has("selected")) words.push("current");
  }

  if (!names.includes("aria-expanded") && !has("expanded") && disclosureCandidate(el, role, tag, names)) {
    const state = ownedListState(el, styleOf);
    if (state) words.push(state);
  }
  return newRole ? { role: newRole, words } : { words };
}

function disclosureCandidate(el: Element, role: string, tag: string, names: AttributeNames): boolean {
  if (CONTAINER_ROLES.has(role)) return false;
  if (tag === "a" && names.includes("href")) {
    const href = nativeDom().getAttribute(el, "href") ?? "";
    if (href !== "#" && !href.startsWith("javascript:")) return false;
  }
  return tag !== "input" && tag !== "select" && tag !== "textarea" && tag !== "summary";
}

/**
 * "collapsed" when the list this toggle owns is hidden, "expanded" when it is shown; undefined
 * when it owns none. Owned: the next sibling element (a list, or any block when it is hidden),
 * or, for a toggle inside a list item, a list that is a direct child of that item.
 */
function ownedListState(el: Element, styleOf: StyleReader): string | undefined {
  const dom = nativeDom();
  const owned = ownedContainer(el);
  if (!owned) return undefined;
  const hidden = isHiddenBox(owned.element, styleOf);
  // A hidden block beside a control is often no part of it (a "Refreshing…" note beside
  // Refresh): only a control that says it toggles it is a collapsed disclosure.
  if (hidden && !owned.list && !saysItToggles(el, owned.element)) return undefined;
  if (hidden) return "collapsed";
  return owned.list && dom.childElementCount(owned.element) > 0 ? "expanded" : undefined;
}

function ownedContainer(el: Element): { element: Element; list: boolean } | undefined {
  const dom = nativeDom();
  const next = dom.nextElementSibling(el);
  if (next) {
    const nextTag = dom.localName(next);
    if (OWNED_LIST_TAGS.has(nextTag)) return { element: next, list: true };
    if (OWNED_BLOCK_TAGS.has(nextTag)) return { element: next, list: false };
  }
  // A tree node: <li><span>Folder</span><ul>…</ul></li>, the toggle possibly wrapped once.
  let item = dom.parentElement(el);
  if (item && dom.localName(item) !== "li") item = dom.parentElement(item);
  if (!item || dom.localName(item) !== "li") return undefined;
  for (let child = item.firstElementChild; child; child = child.nextElementSibling) {
    if (child === el || child.contains(el)) continue;
    if (OWNED_LIST_TAGS.has(dom.localName(child))) return { element: child, list: true };
  }
  return undefined;
}

/** Class words of disclosures (accordions, collapses, dropdowns) on a toggle or its panel. */
const DISCLOSURE_CLASS =
  /(?:^|[\s_-])(?:accordion|collapse|collapsible|collapsed|expand|expander|expandable|toggle|toggler|disclosure|dropdown|submenu|panel|drawer)(?:[\s_-]|$)/i;

/**
 * Whether a toggle says it shows and hides `owned`: it names it (aria-controls), a disclosure
 * class sits on either, or the toggle draws an arrow or plus in ::before/::after.
 */
function saysItToggles(el: Element, owned: Element): boolean {
  const dom = nativeDom();
  const controls = dom.getAttribute(el, "aria-controls");
  const id = dom.getAttribute(owned, "id");
  if (controls && id && controls.split(/\s+/).includes(id)) return true;
  if (DISCLOSURE_CLASS.test(dom.getAttribute(el, "class") ?? "")) return true;
  if (DISCLOSURE_CLASS.test(dom.getAttribute(owned, "class") ?? "")) return true;
  const view = el.ownerDocument.defaultView;
  if (!view) return false;
  for (const pseudo of ["::before", "::after"]) {
    const content = view.getComputedStyle(el, pseudo).getPropertyValue("content");
    if (content && content !== "none" && content !== "normal" && content !== '""') return true;
  }
  return false;
}

function isHiddenBox(el: Element, styleOf: StyleReader): boolean {
  if (el.hasAttribute("hidden")) return true;
  const style = styleOf(el);
  const dom = nativeDom();
  return (
    dom.getPropertyValue(style, "display") === "none" ||
    dom.getPropertyValue(style, "visibility") === "hidden"
  );
}

/**
 * Where a slider's thumb sits along its track, as a person sees it: `position=40%` from the
 * start (left, or bottom for a vertical track), `vertical` added for an upright track. From the
 * thumb's inline `left`/`bottom` percentage (what jQuery UI writes), else from the boxes.
 * Its number is not the slider's value: the page shows that (or not) elsewhere.
 */
function handlePosition(el: Element): string | undefined {
  const dom = nativeDom();
  const inline = dom.getAttribute(el, "style") ?? "";
  const left = /(?:^|;)\s*left:\s*(-?[\d.]+)%/.exec(inline);
  if (left) return `position=${Math.round(Number(left[1]))}%`;
  const bottom = /(?:^|;)\s*bottom:\s*(-?[\d.]+)%/.exec(inline);
  if (bottom) return `position=${Math.round(Number(bottom[1]))}% vertical`;
  const track = dom.parentElement(el);
  if (!track) return undefined;
  const thumb = dom.getBoundingClientRect(el);
  const box = dom.getBoundingClientRect(track);
  if (box.width <= 0 || box.height <= 0) return undefined;
  if (box.height > box.width) {
    const fraction = (box.bottom - (thumb.top + thumb.height / 2)) / box.height;
    return `position=${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}% vertical`;
  }
  const fraction = (thumb.left + thumb.width / 2 - box.left) / box.width;
  return `position=${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
}
