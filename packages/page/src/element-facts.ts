/**
 * What the tree says about one element: its printed role (including `clickable` for plain
 * elements that only look clickable), its value="..." text and its states. Shared by the tree,
 * the ambiguity payloads and stale-ref suggestions so they all use the tree's words.
 */
import { accessibleName, boundedText } from "./accessible-name.js";
import { collapseWhitespace, truncate } from "./dom-realm.js";
import { nativeDom } from "./native-dom.js";
import {
  type AttributeNames,
  headingLevel,
  INTERACTIVE_ROLES,
  roleOf,
  VALUE_FORMATS,
  VALUE_SKIPPED_INPUT_TYPES,
} from "./roles.js";
import { isDragHandleClass } from "./states.js";

export const VALUE_MAX_CHARS = 60;
/** aria-disabled is inherited: an element is disabled when it or an ancestor matches this. */
export const ARIA_DISABLED_SELECTOR = "[aria-disabled=true]";
const CLICK_HANDLER_ATTRIBUTES = [
  "onclick",
  "onmousedown",
  "onpointerdown",
  "ng-click",
  "@click",
  "v-on:click",
];

/** Interactive role of an element, or "clickable" when only its styling/attributes say so. */
export function interactiveRole(
  el: Element,
  role: string,
  cursorPointer: boolean,
  parentCursorPointer: boolean,
  names?: AttributeNames,
  tag: string = el.localName,
): string | undefined {
  if (INTERACTIVE_ROLES.has(role)) {
    if (role === "option" && tag === "option") return undefined;
    return role;
  }
  if (role === "textbox") return role;
  if (tag === "input" && nativeDom().inputType(el as HTMLInputElement) !== "hidden") return role || "textbox";
  if (tag === "summary") return "button";
  if (tag === "video" || tag === "audio") return el.hasAttribute("controls") ? tag : undefined;
  const tabindex = names && !names.includes("tabindex") ? null : nativeDom().getAttribute(el, "tabindex");
  if (tabindex !== null && Number(tabindex) >= 0) return role || "clickable";
  for (const attribute of CLICK_HANDLER_ATTRIBUTES) {
    if (names ? names.includes(attribute) : el.hasAttribute(attribute)) return role || "clickable";
  }
  if (cursorPointer && !parentCursorPointer && tag !== "label" && tag !== "html" && tag !== "body") {
    return role || "clickable";
  }
  return undefined;
}

export function isEditingHost(el: Element, names?: AttributeNames): boolean {
  if (names && !names.includes("contenteditable")) return false;
  const dom = nativeDom();
  if (!dom.isContentEditable(el as HTMLElement)) return false;
  const parent = dom.parentElement(el) as HTMLElement | null;
  return !parent || !dom.isContentEditable(parent);
}

/**
 * The live value shown as value="..." (spec 000: 60 chars, some input types skipped). A tree
 * scoped to the field itself (`ref_id`) passes a larger cap: the whole value, one call away.
 */
export function valueText(
  el: Element,
  role: string,
  tag: string = el.localName,
  maxChars: number = VALUE_MAX_CHARS,
): string | undefined {
  let value: string | undefined;
  if (tag === "input") {
    const type = (nativeDom().getAttribute(el, "type") ?? "text").toLowerCase();
    if (VALUE_SKIPPED_INPUT_TYPES.has(type)) return undefined;
    value = nativeDom().inputValue(el as HTMLInputElement);
  } else if (tag === "textarea") {
    value = (el as HTMLTextAreaElement).value;
  } else if (tag === "select") {
    const selected = Array.from((el as HTMLSelectElement).selectedOptions).map(
      (option) => option.label || option.text,
    );
    value = selected.join(", ");
  } else if (nativeDom().isContentEditable(el as HTMLElement)) {
    value = boundedText(el, maxChars + 1);
  } else if (role === "combobox" || role === "spinbutton" || role === "slider" || role === "scrollbar") {
    value = el.getAttribute("aria-valuetext") ?? el.getAttribute("aria-valuenow") ?? undefined;
    if (value === undefined && role === "combobox") value = boundedText(el, maxChars + 1);
  }
  if (value === undefined || value === "") return undefined;
  // Scoped to the field, the value is given exactly (its spaces and line breaks too): a copy of
  // it must be the same text.
  if (maxChars > VALUE_MAX_CHARS && (tag === "input" || tag === "textarea")) return truncate(value, maxChars);
  return truncate(collapseWhitespace(value), maxChars);
}

/** A value longer than this is cut even in a tree scoped to its field (read_page has it all). */
export const SCOPED_VALUE_MAX_CHARS = 20_000;

/** Class names shown for a nameless control (`class="email-reply"`), cut to a few words. */
const CLASS_HINT_MAX_CHARS = 50;
/** Class names every widget of a library wears: they say nothing about this one. */
const GENERIC_CLASS =
  /^(?:ui-(?:widget|widget-content|button|corner-\w+|state-default|helper-\w+)|btn|btn-default)$/;
/** Image files are named by their last path segment, cut to this. */
const FILE_HINT_MAX_CHARS = 60;

/**
 * What little a nameless line's markup says: an image's file name (` src="ch_2.png"`), a
 * control's class (` class="ql-bold"`). "" when there is nothing to say.
 */
export function unnamedHint(el: Element, tag: string, names: AttributeNames, control: boolean): string {
  const dom = nativeDom();
  if (tag === "img" && names.includes("src")) {
    const src = dom.getAttribute(el, "src") ?? "";
    const file = src.startsWith("data:") ? "" : (src.split(/[?#]/)[0]?.split("/").pop() ?? "");
    if (file) return ` src=${JSON.stringify(truncate(decodeSafely(file), FILE_HINT_MAX_CHARS))}`;
  }
  if (!control || !names.includes("class")) return "";
  const hint = collapseWhitespace(dom.getAttribute(el, "class") ?? "")
    .split(" ")
    .filter((word) => !GENERIC_CLASS.test(word))
    .join(" ")
    .slice(0, CLASS_HINT_MAX_CHARS);
  return hint ? ` class=${JSON.stringify(hint)}` : "";
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Whether an element inside a script-wired widget is one of its drag handles. */
export function isDragHandle(el: Element, names: AttributeNames): boolean {
  return names.includes("class") && isDragHandleClass(nativeDom().getAttribute(el, "class") ?? "");
}

/**
 * Whether valueText shows this element's own text: a custom combobox (not a native field, not
 * an editing host) without aria-valuetext/aria-valuenow. Its text below it is then redundant.
 */
export function comboboxValueIsItsText(
  el: Element,
  role: string,
  tag: string,
  names: AttributeNames,
): boolean {
  if (role !== "combobox" || tag === "input" || tag === "textarea" || tag === "select") return false;
  if (names.includes("aria-valuetext") || names.includes("aria-valuenow")) return false;
  return !nativeDom().isContentEditable(el as HTMLElement);
}

/** States in the order DESIGN.md lists them, plus heading level, modal and invalid. */
const FORM_CONTROL_TAGS: ReadonlySet<string> = new Set([
  "button",
  "input",
  "select",
  "textarea",
  "option",
  "optgroup",
  "fieldset",
]);

export function stateWords(
  el: Element,
  role: string,
  names: AttributeNames = el.getAttributeNames(),
  tag: string = el.localName,
  /** False when the caller knows no element in this tree scope has aria-disabled=true. */
  ariaDisabledInScope = true,
): string[] {
  const words: string[] = [];
  const dom = nativeDom();
  const attr = (name: string) => (names.includes(name) ? dom.getAttribute(el, name) : null);
  const input = tag === "input" ? (el as HTMLInputElement) : undefined;
  const inputType = input ? dom.inputType(input) : "";
  if (input && (inputType === "checkbox" || inputType === "radio")) {
    if (dom.inputIndeterminate(input)) words.push("checked=mixed");
    else if (dom.inputChecked(input)) words.push("checked");
  } else {
    const ariaChecked = attr("aria-checked");
    if (ariaChecked === "true") words.push("checked");
    else if (ariaChecked === "mixed") words.push("checked=mixed");
  }
  // :disabled also covers controls inside a disabled <fieldset>; aria-disabled is inherited.
  const disabled =
    (FORM_CONTROL_TAGS.has(tag) && dom.matches(el, ":disabled")) ||
    (ariaDisabledInScope && dom.closest(el, ARIA_DISABLED_SELECTOR) !== null);
  if (disabled) words.push("disabled");
  const expanded = attr("aria-expanded");
  if (expanded === "true") words.push("expanded");
  else if (
    tag === "summary" &&
    el.parentElement?.localName === "details" &&
    el.parentElement.hasAttribute("open")
  ) {
    words.push("expanded");
  }
  if (attr("aria-selected") === "true" || (tag === "option" && (el as HTMLOptionElement).selected)) {
    words.push("selected");
  }
  if (names.includes("required") || attr("aria-required") === "true") words.push("required");
  // A read-only field (a date picker's input) takes no typing: say so before a model types.
  if (
    ((tag === "input" || tag === "textarea") && names.includes("readonly")) ||
    attr("aria-readonly") === "true"
  )
    words.push("readonly");
  const pressed = attr("aria-pressed");
  if (pressed === "true") words.push("pressed");
  else if (pressed === "mixed") words.push("pressed=mixed");
  if (attr("aria-invalid") === "true") words.push("invalid");
  if (role === "heading") {
    const level = headingLevel(el, names, tag);
    if (level) words.push(`level=${level}`);
  }
  if ((role === "dialog" || role === "alertdialog") && (attr("aria-modal") === "true" || matchesModal(el))) {
    words.push("modal");
  }
  // A date or time field: its type, and the one form of value type_ax takes for it.
  const format = input ? VALUE_FORMATS[inputType] : undefined;
  if (format) words.push(`type=${inputType}`, `format=${format}`);
  return words;
}

function matchesModal(el: Element): boolean {
  try {
    return el.matches(":modal");
  } catch {
    return false;
  }
}

/** `role "name" value="..." states` without the ref, as the tree prints it. */
export function formatElementLine(
  role: string,
  name: string,
  value: string | undefined,
  states: string[],
): string {
  let line = role;
  if (name) line += ` ${JSON.stringify(name)}`;
  if (value !== undefined) line += ` value=${JSON.stringify(value)}`;
  if (states.length > 0) line += ` ${states.join(" ")}`;
  return line;
}

/** Role and name of an element for payloads outside the tree walk (no inherited cursor info). */
export function describeForModel(el: Element): { role: string; name: string } {
  const base = roleOf(el);
  const role = interactiveRole(el, base, false, false) ?? (base || el.localName);
  return { role, name: accessibleName(el, role).name };
}
