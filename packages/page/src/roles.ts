/**
 * ARIA roles as the tree prints them: explicit `role` first, else the implicit role of the tag.
 * Also decides which elements are interactive (get a ref) and which roles are containers whose
 * children are listed under them.
 */
import { AREA_ROLES } from "@webbrain/protocol";
import { isInput } from "./dom-realm.js";
import { nativeDom } from "./native-dom.js";

/** Roles that a user acts on: each element with one of these gets a ref. */
export const INTERACTIVE_ROLES: ReadonlySet<string> = new Set([
  "button",
  "link",
  "checkbox",
  "radio",
  "switch",
  "tab",
  "option",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "combobox",
  "textbox",
  "searchbox",
  "spinbutton",
  "slider",
  "listbox",
  "treeitem",
  "gridcell",
  "scrollbar",
  "iframe",
]);

/** Roles whose name comes from their content (so their text is not printed again below them). */
export const NAME_FROM_CONTENT_ROLES: ReadonlySet<string> = new Set([
  "button",
  "link",
  "checkbox",
  "radio",
  "switch",
  "tab",
  "option",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "treeitem",
  "heading",
  "cell",
  "gridcell",
  "columnheader",
  "rowheader",
  "tooltip",
  "summary",
]);

/** Non-interactive roles printed as structure lines (context for the refs inside them). */
export const STRUCTURE_ROLES: ReadonlySet<string> = new Set([
  "heading",
  // The areas a saved step names its target by (protocol's list), and live or pictured content.
  ...AREA_ROLES,
  "alert",
  "status",
  "img",
]);

/** Structure roles kept even by the `interactive` filter: they name what the refs inside mean. */
export const INTERACTIVE_CONTEXT_ROLES: ReadonlySet<string> = new Set([
  "dialog",
  "alertdialog",
  "radiogroup",
  "menu",
  "menubar",
  "tablist",
  "toolbar",
  "tree",
  "grid",
]);

const LANDMARK_NEEDS_NAME: ReadonlySet<string> = new Set(["region", "form", "group"]);

/** Tags whose implicit role depends on attributes or context (everything else: TAG_ROLES). */
const FAST_PATH_TAGS: ReadonlySet<string> = new Set([
  "a",
  "area",
  "input",
  "select",
  "img",
  "svg",
  "header",
  "footer",
  "section",
]);

const INPUT_ROLES: Record<string, string> = {
  button: "button",
  submit: "button",
  reset: "button",
  image: "button",
  checkbox: "checkbox",
  radio: "radio",
  range: "slider",
  number: "spinbutton",
  search: "searchbox",
  email: "textbox",
  tel: "textbox",
  text: "textbox",
  url: "textbox",
  password: "textbox",
  date: "textbox",
  "datetime-local": "textbox",
  month: "textbox",
  week: "textbox",
  time: "textbox",
  color: "button",
  file: "button",
};

const TAG_ROLES: Record<string, string> = {
  button: "button",
  textarea: "textbox",
  h1: "heading",
  h2: "heading",
  h3: "heading",
  h4: "heading",
  h5: "heading",
  h6: "heading",
  nav: "navigation",
  main: "main",
  aside: "complementary",
  form: "form",
  dialog: "dialog",
  fieldset: "group",
  details: "group",
  summary: "button",
  table: "table",
  option: "option",
  iframe: "iframe",
  frame: "iframe",
  search: "search",
  menu: "list",
  progress: "progressbar",
  meter: "meter",
  output: "status",
};

/**
 * Attribute names of an element, fetched once (`getAttributeNames()` is one call, while each
 * getAttribute/hasAttribute from a sandbox realm crosses a wrapper). Lets hot paths skip lookups
 * of attributes the element does not have.
 */
export type AttributeNames = readonly string[];

export function explicitRole(el: Element, names?: AttributeNames): string {
  if (names && !names.includes("role")) return "";
  const attr = nativeDom().getAttribute(el, "role");
  if (!attr) return "";
  const first = attr.trim().split(/\s+/)[0] ?? "";
  return first === "none" ? "presentation" : first.toLowerCase();
}

export function roleOf(el: Element, names?: AttributeNames, tagName?: string): string {
  const explicit = explicitRole(el, names);
  if (explicit && explicit !== "presentation" && explicit !== "generic") return explicit;
  const tag = tagName ?? el.localName;
  if (names && !FAST_PATH_TAGS.has(tag) && !names.includes("contenteditable")) return TAG_ROLES[tag] ?? "";
  // With `names`, attributes the element lacks are answered without a wrapper crossing.
  const has = (name: string): boolean => (names ? names.includes(name) : el.hasAttribute(name));
  const get = (name: string): string | null =>
    names && !names.includes(name) ? null : nativeDom().getAttribute(el, name);
  if (tag === "a" || tag === "area") return has("href") ? "link" : "";
  if (tag === "input") {
    const type = (get("type") ?? "text").toLowerCase();
    if (type === "hidden") return "";
    if (
      (type === "text" || type === "search" || type === "email" || type === "tel" || type === "url") &&
      has("list")
    ) {
      return "combobox";
    }
    return INPUT_ROLES[type] ?? "textbox";
  }
  if (tag === "select") {
    const select = el as HTMLSelectElement;
    return select.multiple || select.size > 1 ? "listbox" : "combobox";
  }
  if (tag === "img") return get("alt") === "" ? "" : "img";
  if (tag === "svg") return el.querySelector(":scope > title") || has("aria-label") ? "img" : "";
  if (tag === "header") return el.closest("article, aside, main, nav, section") ? "" : "banner";
  if (tag === "footer") return el.closest("article, aside, main, nav, section") ? "" : "contentinfo";
  if (tag === "section") return has("aria-label") || has("aria-labelledby") ? "region" : "";
  if (get("contenteditable") !== null && (el as HTMLElement).isContentEditable) return "textbox";
  return TAG_ROLES[tag] ?? "";
}

/** Whether a structure role is printed for this element (some need a name to mean anything). */
export function structureRoleNeedsName(role: string): boolean {
  return LANDMARK_NEEDS_NAME.has(role);
}

export function headingLevel(
  el: Element,
  names?: AttributeNames,
  tag: string = el.localName,
): number | undefined {
  const aria = names && !names.includes("aria-level") ? null : el.getAttribute("aria-level");
  if (aria && /^\d+$/.test(aria)) return Number(aria);
  const match = /^h([1-6])$/.exec(tag);
  return match?.[1] ? Number(match[1]) : undefined;
}

/** Elements that can receive text: fields, textareas, contenteditable hosts. */
export function isTextEntry(el: Element): boolean {
  if (el.localName === "textarea") return true;
  if (isInput(el)) {
    const type = (el.getAttribute("type") ?? "text").toLowerCase();
    return !NON_TEXT_INPUT_TYPES.has(type);
  }
  return (el as HTMLElement).isContentEditable === true;
}

/**
 * Input types whose value has one fixed form, and that form: what type_ax must be given (the
 * field's own display, mm/dd/yyyy or 7:55 PM, depends on the locale and is not its value).
 */
export const VALUE_FORMATS: Readonly<Record<string, string>> = {
  date: "YYYY-MM-DD",
  time: "HH:MM",
  "datetime-local": "YYYY-MM-DDTHH:MM",
  month: "YYYY-MM",
  week: "YYYY-Www",
};

/** Input types whose `.value` is not text the user typed (spec 000 skips their value="..."). */
export const VALUE_SKIPPED_INPUT_TYPES: ReadonlySet<string> = new Set([
  "submit",
  "button",
  "reset",
  "file",
  "checkbox",
  "radio",
  "image",
  "hidden",
  "color",
  "range",
  "password",
]);

const NON_TEXT_INPUT_TYPES: ReadonlySet<string> = new Set([
  "submit",
  "button",
  "reset",
  "file",
  "checkbox",
  "radio",
  "image",
  "hidden",
  "color",
  "range",
]);
