/**
 * Accessible names, in spec 000's priority order:
 *   1 aria-labelledby, 2 aria-label, 3 <label for> / wrapping <label>, 4 placeholder,
 *   5 value of submit/button/reset inputs, 6 content of buttons/links/summary (and other
 *   name-from-content roles), 7 for unlabeled fields: adjacent text before the field.
 * Then `title`, and for icon-only controls the alt/title of an image or svg inside, or, for a
 * chip whose only content is its background colour, that colour (`lime #00ff00`). Text beside a
 * control that is not a field is never taken for its name (it is the page's, not the control's).
 *
 * Text is collected with a bounded walk (never more than a few hundred characters per element),
 * so naming costs O(name length), not O(subtree), and the tree stays one linear walk.
 */

import { describeColour } from "./colour-names.js";
import {
  collapseWhitespace,
  ELEMENT_NODE,
  isElement,
  isInput,
  isTextArea,
  shadowRootOf,
  TEXT_NODE,
  truncate,
} from "./dom-realm.js";
import { nativeDom, type StyleReader, styleReader } from "./native-dom.js";
import { type AttributeNames, NAME_FROM_CONTENT_ROLES } from "./roles.js";
import { isDragHandleClass, isHandleClass } from "./states.js";

export const NAME_MAX_CHARS = 100;
/** Adjacent text longer than this is prose, not a label. */
const ADJACENT_LABEL_MAX_CHARS = 60;
/** How many previous siblings the adjacent-text scan looks at, per level. */
const ADJACENT_SIBLINGS_SCANNED = 3;
/** How many ancestor levels the adjacent-text scan climbs. */
const ADJACENT_LEVELS_SCANNED = 2;
/** Text that ends a sentence (a label ends in a colon or in nothing). */
const SENTENCE_END = /[.!?]["')\]]?$/;
/** Roles that act when clicked and can be named by what they show (a colour chip). */
const NAMED_BY_LOOK_ROLES: ReadonlySet<string> = new Set([
  "button",
  "link",
  "clickable",
  "menuitem",
  "tab",
  "option",
  "gridcell",
  "listitem",
  "radio",
  "checkbox",
]);

/** Controls the browser draws: their colour comes from a theme, not from what they mean. */
const NATIVE_CONTROL_TAGS: ReadonlySet<string> = new Set(["input", "select", "textarea", "button"]);
/** What an unlabelled checkbox or radio may sit in and be called by (nearest first). */
const CONTEXT_SELECTOR =
  "td, th, [role=cell], [role=gridcell], tr, [role=row], li, [role=listitem], [role=option]";
const CELL_SELECTOR = "td, th, [role=cell], [role=gridcell]";

const SKIPPED_TEXT_TAGS: ReadonlySet<string> = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "select",
  "textarea",
  "input",
  "option",
  "datalist",
]);

/** Elements whose text is not their textContent even without element children. */
const LEAF_TEXT_EXCLUDED: ReadonlySet<string> = new Set([...SKIPPED_TEXT_TAGS, "img", "svg", "slot"]);

export type NameSource =
  | "labelledby"
  | "aria-label"
  | "label"
  | "placeholder"
  | "value"
  | "content"
  | "adjacent"
  | "title"
  | "icon"
  | "colour"
  | "context"
  | "handle"
  | "none";

export interface AccessibleName {
  name: string;
  source: NameSource;
}

/** Visible-ish text of a subtree, bounded to `limit` characters. */
export function boundedText(root: Node, limit: number): string {
  // A leaf element (text only) is read in one go; from a sandbox each node visited costs a crossing.
  const dom = nativeDom();
  const rootTag = dom.nodeType(root) === ELEMENT_NODE ? dom.localName(root as Element) : undefined;
  if (
    rootTag !== undefined &&
    dom.firstElementChild(root as Element) === null &&
    !LEAF_TEXT_EXCLUDED.has(rootTag) &&
    !shadowRootOf(root as Element, rootTag)
  ) {
    return collapseWhitespace(dom.textContent(root) ?? "");
  }
  const parts: string[] = [];
  let length = 0;
  // Text its element hides (display:none, visibility:hidden) is no part of what a person reads.
  let styleOf: StyleReader | undefined;
  const readStyle = (el: Element): CSSStyleDeclaration | undefined => {
    if (!styleOf) {
      const view = el.ownerDocument.defaultView;
      if (!view) return undefined;
      styleOf = styleReader(view);
    }
    return styleOf(el);
  };
  const visit = (node: Node, textHidden: boolean): void => {
    if (length >= limit) return;
    const type = dom.nodeType(node);
    if (type === TEXT_NODE) {
      if (textHidden) return;
      const text = dom.nodeValue(node) ?? "";
      parts.push(text);
      length += text.length;
      return;
    }
    if (type !== ELEMENT_NODE) {
      for (let child = dom.firstChild(node); child; child = dom.nextSibling(child)) visit(child, textHidden);
      return;
    }
    const el = node as Element;
    const tag = dom.localName(el);
    if (SKIPPED_TEXT_TAGS.has(tag)) return;
    // One getAttributeNames() instead of a wrapper crossing per attribute the element lacks.
    const names = dom.getAttributeNames(el);
    const attr = (name: string): string | null => (names.includes(name) ? dom.getAttribute(el, name) : null);
    if (attr("aria-hidden") === "true" || names.includes("hidden")) return;
    if (node !== root) {
      const style = readStyle(el);
      if (style) {
        if (dom.getPropertyValue(style, "display") === "none") return;
        // visibility is inherited and a descendant may set it back to visible.
        const visibility = dom.getPropertyValue(style, "visibility");
        textHidden = visibility === "hidden" || visibility === "collapse";
      }
    }
    const label = attr("aria-label");
    if (label && node !== root) {
      if (textHidden) return;
      parts.push(` ${label} `);
      length += label.length;
      return;
    }
    if (tag === "img") {
      const alt = attr("alt");
      if (alt && !textHidden) {
        parts.push(` ${alt} `);
        length += alt.length;
      }
      return;
    }
    if (tag === "svg") {
      const title = el.querySelector("title")?.textContent;
      if (title && !textHidden) {
        parts.push(` ${title} `);
        length += title.length;
      }
      return;
    }
    if (tag === "br") parts.push(" ");
    if (tag === "slot") {
      const assigned = (node as HTMLSlotElement).assignedNodes({ flatten: true });
      if (assigned.length > 0) {
        for (const child of assigned) visit(child, textHidden);
        return;
      }
    }
    const shadow = shadowRootOf(el, tag);
    const source: Node = shadow ?? node;
    for (let child = dom.firstChild(source); child; child = dom.nextSibling(child)) {
      visit(child, textHidden);
      if (length >= limit) return;
    }
  };
  visit(root, false);
  return collapseWhitespace(parts.join(" "));
}

function textOfIds(el: Element, ids: string): string {
  const root = el.getRootNode() as Document | ShadowRoot;
  const parts: string[] = [];
  for (const id of ids.trim().split(/\s+/)) {
    const target = root.getElementById?.(id) ?? el.ownerDocument.getElementById(id);
    if (!target) continue;
    if (isInput(target) || isTextArea(target)) parts.push(target.value);
    else parts.push(target.getAttribute("aria-label") ?? boundedText(target, NAME_MAX_CHARS));
  }
  return collapseWhitespace(parts.join(" "));
}

/**
 * Labels by control, built once per tree walk. `input.labels` scans the whole document in
 * Gecko, so asking it for every field would make the walk quadratic.
 */
export class LabelIndex {
  readonly #doc: Document;
  #byControl: Map<Element, Element[]> | undefined;

  constructor(doc: Document) {
    this.#doc = doc;
  }

  labelsOf(el: Element): Element[] | undefined {
    const dom = nativeDom();
    // getRootNode() being this document implies ownerDocument is too: one call, not two.
    if (dom.getRootNode(el) !== this.#doc) return undefined;
    if (!this.#byControl) {
      this.#byControl = new Map();
      for (const label of Array.from(this.#doc.querySelectorAll("label"))) {
        const control = dom.labelControl(label as HTMLLabelElement);
        if (!control) continue;
        const list = this.#byControl.get(control);
        if (list) list.push(label);
        else this.#byControl.set(control, [label]);
      }
    }
    return this.#byControl.get(el) ?? [];
  }
}

function labelText(el: Element, index: LabelIndex | undefined): string {
  const labels = index?.labelsOf(el) ?? labelsOf(el);
  // boundedText's result is already collapsed: one label needs no join and no second collapse.
  if (labels.length === 1) return boundedText(labels[0] as Element, NAME_MAX_CHARS);
  if (labels.length > 0) {
    const parts: string[] = [];
    for (const label of labels) parts.push(boundedText(label, NAME_MAX_CHARS));
    return collapseWhitespace(parts.join(" "));
  }
  const wrapping = nativeDom().closest(el, "label");
  return wrapping ? boundedText(wrapping, NAME_MAX_CHARS) : "";
}

/**
 * A control's labels without a tree walk's index. Only a control with an id can have a
 * `<label for>`; without one, its only label is the one around it, which labelText's fallback
 * finds, so `labels` (a scan of the whole document in Gecko) is not asked.
 */
function labelsOf(el: Element): readonly Element[] {
  if (!nativeDom().getAttribute(el, "id")) return [];
  const list = (el as HTMLInputElement).labels;
  const labels: Element[] = [];
  for (let i = 0; list && i < list.length; i++) labels.push(list[i] as Element);
  return labels;
}

function isLabelable(tag: string): boolean {
  return (
    tag === "input" ||
    tag === "textarea" ||
    tag === "select" ||
    tag === "button" ||
    tag === "meter" ||
    tag === "progress" ||
    tag === "output"
  );
}

function isFieldLike(tag: string, role: string): boolean {
  if (tag === "input" || tag === "textarea" || tag === "select") return true;
  return (
    role === "textbox" ||
    role === "searchbox" ||
    role === "spinbutton" ||
    role === "combobox" ||
    role === "slider"
  );
}

/** Spec 000 rule 7: text right before an unlabeled field, e.g. `Every [ 1 ] months`. */
export function adjacentText(el: Element): string {
  let current: Element | null = el;
  for (let level = 0; current && level < ADJACENT_LEVELS_SCANNED; level++) {
    let sibling: Node | null = current.previousSibling;
    for (let scanned = 0; sibling && scanned < ADJACENT_SIBLINGS_SCANNED; sibling = sibling.previousSibling) {
      let text = "";
      if (sibling.nodeType === TEXT_NODE) {
        text = collapseWhitespace(sibling.nodeValue ?? "");
      } else if (isElement(sibling)) {
        scanned++;
        if (
          sibling.matches(
            "input, select, textarea, button, [role=combobox], [role=textbox], [contenteditable]",
          )
        )
          break;
        if (sibling.querySelector("input, select, textarea, button")) break;
        text = boundedText(sibling, ADJACENT_LABEL_MAX_CHARS + 1);
      }
      // Prose is not a label: too long, or a sentence (an instruction above a form ends in a
      // full stop; a label does not).
      if (text) return text.length <= ADJACENT_LABEL_MAX_CHARS && !SENTENCE_END.test(text) ? text : "";
    }
    current = current.parentElement;
    if (current?.matches("form, fieldset, body, [role=dialog], [role=group], [role=radiogroup]")) break;
  }
  return "";
}

function iconName(el: Element): string {
  const img = el.querySelector("img[alt]:not([alt='']), img[title], svg title, [title]");
  if (!img) return "";
  if (img.localName === "title") return collapseWhitespace(img.textContent ?? "");
  return collapseWhitespace(img.getAttribute("alt") || img.getAttribute("title") || "");
}

/**
 * `names` (from getAttributeNames) lets the tree walk skip reads of attributes the element does
 * not have; callers outside the walk omit it.
 */
export function accessibleName(
  el: Element,
  role: string,
  labels?: LabelIndex,
  names?: AttributeNames,
  tag: string = el.localName,
): AccessibleName {
  const result = rawAccessibleName(el, role, labels, names, tag);
  return { name: truncate(result.name, NAME_MAX_CHARS), source: result.source };
}

function rawAccessibleName(
  el: Element,
  role: string,
  labels: LabelIndex | undefined,
  names: AttributeNames | undefined,
  tag: string,
): AccessibleName {
  const attr = (name: string): string | null =>
    names && !names.includes(name) ? null : nativeDom().getAttribute(el, name);
  const labelledBy = attr("aria-labelledby");
  if (labelledBy) {
    const text = textOfIds(el, labelledBy);
    if (text) return { name: text, source: "labelledby" };
  }
  const ariaLabel = collapseWhitespace(attr("aria-label") ?? "");
  if (ariaLabel) return { name: ariaLabel, source: "aria-label" };
  if (isLabelable(tag)) {
    const text = labelText(el, labels);
    if (text) return { name: text, source: "label" };
  }
  if (tag === "input" || tag === "textarea") {
    const placeholder = collapseWhitespace(attr("placeholder") ?? "");
    if (placeholder) return { name: placeholder, source: "placeholder" };
  }
  if (tag === "input") {
    const type = (attr("type") ?? "").toLowerCase();
    if (type === "submit" || type === "button" || type === "reset") {
      const value = collapseWhitespace((el as HTMLInputElement).value || attr("value") || "");
      if (value) return { name: value, source: "value" };
      if (type === "submit") return { name: "Submit", source: "value" };
      if (type === "reset") return { name: "Reset", source: "value" };
    }
    if (type === "image") {
      const alt = attr("alt");
      if (alt) return { name: alt, source: "value" };
    }
  }
  if (tag === "img" || tag === "area") {
    const alt = collapseWhitespace(attr("alt") ?? "");
    if (alt) return { name: alt, source: "content" };
  }
  if (tag === "svg") {
    const title = el.querySelector(":scope > title")?.textContent;
    if (title) return { name: collapseWhitespace(title), source: "content" };
  }
  if (tag === "fieldset") {
    const legend = el.querySelector(":scope > legend");
    if (legend) return { name: boundedText(legend, NAME_MAX_CHARS), source: "content" };
  }
  if (tag === "table") {
    const caption = el.querySelector(":scope > caption");
    if (caption) return { name: boundedText(caption, NAME_MAX_CHARS), source: "content" };
  }
  if (NAME_FROM_CONTENT_ROLES.has(role) || tag === "summary" || role === "clickable" || role === "listitem") {
    const text = boundedText(el, NAME_MAX_CHARS + 1);
    if (text) return { name: text, source: "content" };
  }
  if (isFieldLike(tag, role)) {
    const text = adjacentText(el);
    if (text) return { name: text, source: "adjacent" };
  }
  const title = collapseWhitespace(attr("title") ?? "");
  if (title) return { name: title, source: "title" };
  if (tag === "input") {
    const type = (attr("type") ?? "").toLowerCase();
    if (type === "checkbox" || type === "radio") {
      const text = contextText(el);
      if (text) return { name: text, source: "context" };
    }
  }
  // A native control's background is the browser's or the site's theme, never what it means.
  if (NAMED_BY_LOOK_ROLES.has(role) && !NATIVE_CONTROL_TAGS.has(tag)) {
    const icon = iconName(el);
    if (icon) return { name: icon, source: "icon" };
    // Text beside a control is not its name (the instruction above a row of swatches, the
    // subject next to a trash icon): a control with nothing of its own stays unnamed, unless
    // all it shows is a colour, which is then what a person calls it.
    const colour = swatchColour(el);
    if (colour) return { name: colour, source: "colour" };
    const handle = handleName(nativeDom().getAttribute(el, "class") ?? "");
    if (handle) return { name: handle, source: "handle" };
  }
  return { name: "", source: "none" };
}

/**
 * An unlabelled checkbox or radio is called by the text of what it sits in, as a person reads
 * it: its cell, else its row, else its list item or option. Only where that holds no other
 * checkbox or radio (then the text is not this one's).
 */
function contextText(el: Element): string {
  const dom = nativeDom();
  let container = dom.closest(el, CONTEXT_SELECTOR);
  while (container) {
    if (container.querySelectorAll("input[type=checkbox], input[type=radio]").length > 1) return "";
    const text = boundedText(container, NAME_MAX_CHARS + 1);
    if (text) return text;
    if (!dom.matches(container, CELL_SELECTOR)) return "";
    const parent = dom.parentElement(container);
    container = parent ? dom.closest(parent, CONTEXT_SELECTOR) : null;
  }
  return "";
}

const EDGES: Readonly<Record<string, string>> = {
  n: "top edge",
  s: "bottom edge",
  e: "right edge",
  w: "left edge",
  ne: "top-right corner",
  nw: "top-left corner",
  se: "bottom-right corner",
  sw: "bottom-left corner",
};

/**
 * A drag handle by what it does and where it sits (`resize bottom-right corner`), not by its
 * class: a class list is markup, and a model reads "ui-resizable-handle" as a control to press.
 */
function handleName(className: string): string {
  if (!isDragHandleClass(className)) return "";
  if (/(?:^|\s)drag-handle(?:\s|$)/.test(className)) return "drag handle";
  const edge = /(?:^|\s)ui-resizable-(n|s|e|w|ne|nw|se|sw)(?:\s|$)/.exec(className)?.[1];
  return edge ? `resize ${EDGES[edge]}` : "resize handle";
}

/**
 * `lime #00ff00` for an element whose only content is its background colour: no text, no
 * element inside, a solid colour and no background image. "" otherwise.
 */
export function swatchColour(el: Element, style?: CSSStyleDeclaration): string {
  const dom = nativeDom();
  if (dom.childElementCount(el) > 0 || /\S/.test(dom.textContent(el) ?? "")) return "";
  // A slider's thumb or a drag handle is coloured to be seen, not to say a colour.
  if (isHandleClass(dom.getAttribute(el, "class") ?? "")) return "";
  const computed = style ?? el.ownerDocument.defaultView?.getComputedStyle(el);
  if (!computed) return "";
  if (dom.getPropertyValue(computed, "background-image") !== "none") return "";
  const colour = describeColour(dom.getPropertyValue(computed, "background-color"));
  // An icon font draws its glyph in ::before/::after: that glyph, not the box, is what it shows.
  return colour && !drawsGlyph(el) ? colour : "";
}

function drawsGlyph(el: Element): boolean {
  const view = el.ownerDocument.defaultView;
  if (!view) return false;
  for (const pseudo of ["::before", "::after"]) {
    const content = view.getComputedStyle(el, pseudo).getPropertyValue("content");
    if (content && content !== "none" && content !== "normal" && content !== '""') return true;
  }
  return false;
}
