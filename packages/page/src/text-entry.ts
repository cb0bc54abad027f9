/**
 * The typing core shared by type_ax, type_text and set_field, and the rich-text toolbar guard.
 *
 * Paths (spec 000): inputs/textareas get the native value setter of this realm's prototype (so
 * React/Vue wrappers see a real change) then input + change; contenteditable gets a selection
 * over its content and `insertText` (falling back to textContent + input); <select> picks the
 * option by value or visible text.
 *
 * Positive proof: a text-entry result is `verified: true` only when the text was read back from
 * the intended field afterwards. Anything less is reported as unverified, never as success.
 */
import { collapseWhitespace, isInput, isSelect, isTextArea, renderedText, windowOf } from "./dom-realm.js";
import { summarize } from "./element-target.js";
import { PageError } from "./page-error.js";
import type { PageState } from "./page-state.js";
import { isTextEntry, roleOf, VALUE_FORMATS } from "./roles.js";
import { isRendered } from "./visibility.js";

const TOOLBAR_PATTERN = /toolbar|ql-formats|format-?bar|editor-?menu|menubar/i;
/** How far up the guard looks for a toolbar, and from a toolbar for its editor. */
const TOOLBAR_SEARCH_LEVELS = 4;
const EDITABLE_SELECTOR = "input, textarea, [contenteditable]:not([contenteditable=false])";

export interface TypeOutcome {
  verified: boolean;
  actual: string;
  reformatted?: true;
  method: "value_setter" | "insert_text" | "text_content" | "select_option" | "select_options" | "toggle";
}

function looksLikeToolbar(el: Element): boolean {
  if (roleOf(el) === "toolbar" || roleOf(el) === "menubar") return true;
  const label = `${el.getAttribute("class") ?? ""} ${el.id} ${el.getAttribute("aria-label") ?? ""}`;
  return TOOLBAR_PATTERN.test(label);
}

function toolbarAround(el: Element): Element | null {
  let current: Element | null = el;
  for (let level = 0; current && level < TOOLBAR_SEARCH_LEVELS; level++, current = current.parentElement) {
    if (looksLikeToolbar(current)) return current;
  }
  return null;
}

function editorNear(toolbar: Element): Element | null {
  let scope: Element | null = toolbar.parentElement;
  for (let level = 0; scope && level < TOOLBAR_SEARCH_LEVELS; level++, scope = scope.parentElement) {
    for (const candidate of Array.from(scope.querySelectorAll(EDITABLE_SELECTOR))) {
      if (!toolbar.contains(candidate) && isTextEntry(candidate) && isRendered(candidate)) return candidate;
    }
  }
  return null;
}

/**
 * The element text should go into. A toolbar control of a rich-text editor is refused with the
 * editor's ref; a wrapper around exactly one field is retargeted to that field.
 */
export function textTarget(
  state: PageState,
  el: Element,
  action: string,
): { target: Element; retargeted: boolean } {
  if (isTextEntry(el) || isSelect(el) || isToggle(el)) return { target: el, retargeted: false };
  const toolbar = toolbarAround(el);
  const what = summarize(state, el);
  if (toolbar) {
    const editor = editorNear(toolbar);
    const editorSummary = editor ? summarize(state, editor) : undefined;
    throw new PageError(
      "toolbar_target",
      `${action}: [${what.ref_id}] ${what.role} ${JSON.stringify(what.name)} is a control in a rich-text toolbar, not a text field, so nothing was typed.` +
        (editorSummary
          ? ` Type into the editor itself: [${editorSummary.ref_id}] ${editorSummary.role}${editorSummary.name ? ` ${JSON.stringify(editorSummary.name)}` : ""}.`
          : " Find the editor's text area in the tree and type there."),
      { target: what, ...(editorSummary ? { suggested: editorSummary } : {}) },
    );
  }
  const fields = Array.from(el.querySelectorAll(EDITABLE_SELECTOR)).filter(
    (f) => isTextEntry(f) && isRendered(f),
  );
  if (fields.length === 1) return { target: fields[0]!, retargeted: true };
  if (roleOf(el) === "combobox") return { target: el, retargeted: false };
  throw new PageError(
    "not_editable",
    `${action}: [${what.ref_id}] ${what.role}${what.name ? ` ${JSON.stringify(what.name)}` : ""} does not take text (it is not an input, textarea, select or contenteditable)${fields.length > 1 ? ` and holds ${fields.length} fields` : ""}. Pick a textbox ref from the tree.`,
    { target: what },
  );
}

/**
 * The fixed value form of a date/time field (`YYYY-MM-DD`), undefined for other elements. Such
 * a field is set in the page on both paths, like a select: trusted keys would land in whichever
 * segment the click hit, in the order the locale shows (mm/dd/yyyy), not the value's.
 */
export function valueFormatOf(el: Element): string | undefined {
  return isInput(el) ? VALUE_FORMATS[el.type] : undefined;
}

/** Whether a date/time field takes `value` as it is (the browser's own sanitizing says). */
function acceptsValue(el: HTMLInputElement, value: string): boolean {
  if (value === "") return true;
  const probe = el.ownerDocument.createElement("input");
  probe.type = el.type;
  probe.value = value;
  return probe.value === value;
}

/** Refuses a value a date/time field would drop, saying the form it takes. */
export function checkValueForm(el: Element, value: string, what: string): void {
  const format = valueFormatOf(el);
  if (!format || acceptsValue(el as HTMLInputElement, value)) return;
  throw new PageError(
    "bad_params",
    `${what} is a ${(el as HTMLInputElement).type} field: its value is written ${format} (what the field shows depends on the locale), so ${JSON.stringify(value)} was not typed. Pass it as ${format}.`,
    { format },
  );
}

function isToggle(el: Element): boolean {
  return isInput(el) && (el.type === "checkbox" || el.type === "radio");
}

/** The text a field holds now, as a user would read it. */
export function readBack(el: Element): string {
  if (isInput(el) || isTextArea(el)) return el.value;
  if (isSelect(el))
    return Array.from(el.selectedOptions)
      .map((o) => o.text)
      .join(", ");
  return renderedText(el);
}

function setNativeValue(el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string): void {
  // The setter from this realm's prototype: writes the element's real value, bypassing any
  // own-property `value` accessor a framework installed on the node (React's value tracker).
  const proto = isTextArea(el)
    ? HTMLTextAreaElement.prototype
    : isSelect(el)
      ? HTMLSelectElement.prototype
      : HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, "value")?.set;
  if (setter) setter.call(el, value);
  else el.value = value;
}

function fireInputAndChange(el: Element, data: string): void {
  el.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType: "insertText", data }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

function pickOption(select: HTMLSelectElement, wanted: string): HTMLOptionElement | undefined {
  const options = Array.from(select.options);
  const lower = wanted.trim().toLowerCase();
  return (
    options.find((o) => o.value === wanted) ??
    options.find((o) => collapseWhitespace(o.text) === wanted.trim()) ??
    options.find((o) => collapseWhitespace(o.text).toLowerCase() === lower) ??
    options.find((o) => collapseWhitespace(o.text).toLowerCase().includes(lower))
  );
}

/** Loosely equal: what masks and formatters keep (letters and digits, case-insensitive). */
function looselyEqual(a: string, b: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  return norm(a) === norm(b) && norm(a) !== "";
}

/**
 * Rendered multi-line text as written: the browser's no-break spaces and a line's trailing
 * spaces are layout, not text, so they do not count; indents, markers and brackets do.
 */
function normalizeLines(text: string): string {
  return text
    .replace(/\u00a0/g, " ")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/[ \t]+$/, ""))
    .join("\n")
    .replace(/^\n+|\n+$/g, "");
}

export interface TextCheck {
  verified: boolean;
  actual: string;
  /**
   * A single-line input shows the same letters and digits in another form (a mask, a number
   * format): the field took the text but changed it, so it is not `verified`; `actual` is what
   * the field holds.
   */
  reformatted?: true;
}

/**
 * The whole value must match. Only a single-line <input> may show a reformat (its letters and
 * digits kept, the rest changed); in a textarea or an editor a changed character (a doubled list
 * marker, an added indent, a closed bracket) is a different text, never a match.
 */
export function verifyText(el: Element, expected: string, replaced: boolean): TextCheck {
  const actual = readBack(el);
  if (isSelect(el))
    return {
      verified:
        actual !== "" &&
        (el.value === expected ||
          looselyEqual(actual, expected) ||
          actual.toLowerCase().includes(expected.toLowerCase())),
      actual,
    };
  const editable = (el as HTMLElement).isContentEditable;
  const multiLine = expected.includes("\n");
  // A one-line editor's rendered text may wrap or pad; several lines are compared as lines.
  const norm = editable ? (multiLine ? normalizeLines : collapseWhitespace) : (s: string) => s;
  const text = norm(actual);
  const wanted = norm(expected);
  if (!replaced) return { verified: text.includes(wanted), actual };
  if (text === wanted) return { verified: true, actual };
  if (isInput(el) && looselyEqual(text, wanted)) return { verified: false, actual, reformatted: true };
  return { verified: false, actual };
}

/**
 * Puts `value` in as a paste would: one insertion of the whole text, so an editor that reacts to
 * keys (continues a list on Enter, closes brackets) does not change it. Replaces the content.
 */
export function insertAsPaste(el: Element, value: string): TextCheck {
  const html = el as HTMLElement;
  html.focus({ preventScroll: true });
  const doc = el.ownerDocument;
  if (isInput(el) || isTextArea(el)) el.select();
  else {
    const selection = windowOf(el).getSelection();
    if (selection) {
      const range = doc.createRange();
      range.selectNodeContents(el);
      selection.removeAllRanges();
      selection.addRange(range);
    }
  }
  let inserted = false;
  try {
    inserted = doc.execCommand("insertText", false, value);
  } catch {
    inserted = false;
  }
  if (!inserted && (isInput(el) || isTextArea(el))) {
    setNativeValue(el, value);
    fireInputAndChange(el, value);
  }
  return verifyText(el, value, true);
}

/** Types `value` into a text target with synthetic events; verifies by reading it back. */
export function writeText(el: Element, value: string, replace: boolean): TypeOutcome {
  const html = el as HTMLElement;
  if (isSelect(el) && el.multiple && !pickOption(el, value) && /,/.test(value)) {
    // A multi-select takes several options at once, comma-separated: each must match one.
    const wanted = value.split(/\s*,\s*/).filter(Boolean);
    const picked = wanted.map((w) => pickOption(el, w));
    const missing = wanted.filter((_, i) => !picked[i]);
    if (missing.length > 0)
      throw new PageError(
        "not_found",
        `no option of this multi-select matches ${missing.map((m) => JSON.stringify(m)).join(", ")}; pass the options' texts comma-separated.`,
        { missing },
      );
    html.focus({ preventScroll: true });
    for (const option of Array.from(el.options)) option.selected = picked.includes(option);
    fireInputAndChange(el, value);
    const actual = readBack(el);
    const texts = picked.map((o) => collapseWhitespace(o?.text ?? ""));
    return { verified: texts.every((t) => actual.includes(t)), actual, method: "select_options" };
  }
  if (isSelect(el)) {
    const option = pickOption(el, value);
    if (!option) {
      const choices = Array.from(el.options)
        .slice(0, 20)
        .map((o) => JSON.stringify(collapseWhitespace(o.text)));
      throw new PageError(
        "not_found",
        `no option of this select matches ${JSON.stringify(value)}. Options: ${choices.join(", ")}.`,
        { options: choices },
      );
    }
    html.focus({ preventScroll: true });
    setNativeValue(el, option.value);
    fireInputAndChange(el, option.value);
    return { ...verifyText(el, option.text, true), method: "select_option" };
  }
  if (isToggle(el)) {
    const want = !/^(false|off|no|0|unchecked)$/i.test(value.trim());
    if ((el as HTMLInputElement).checked !== want) html.click();
    const checked = (el as HTMLInputElement).checked;
    return { verified: checked === want, actual: String(checked), method: "toggle" };
  }
  html.focus({ preventScroll: true });
  if (valueFormatOf(el)) {
    setNativeValue(el as HTMLInputElement, value);
    fireInputAndChange(el, value);
    const actual = (el as HTMLInputElement).value;
    return { verified: actual === value, actual, method: "value_setter" };
  }
  if (isInput(el) || isTextArea(el)) {
    const next = replace ? value : el.value + value;
    setNativeValue(el, next);
    fireInputAndChange(el, value);
    return { ...verifyText(el, value, replace), method: "value_setter" };
  }
  // contenteditable
  const doc = el.ownerDocument;
  const selection = windowOf(el).getSelection();
  if (selection) {
    const range = doc.createRange();
    range.selectNodeContents(el);
    if (!replace) range.collapse(false);
    selection.removeAllRanges();
    selection.addRange(range);
  }
  let inserted = false;
  try {
    inserted = doc.execCommand("insertText", false, value);
  } catch {
    inserted = false;
  }
  const check = verifyText(el, value, replace);
  if (inserted && check.verified) return { ...check, method: "insert_text" };
  el.dispatchEvent(
    new InputEvent("beforeinput", {
      bubbles: true,
      cancelable: true,
      composed: true,
      inputType: "insertText",
      data: value,
    }),
  );
  el.textContent = replace ? value : (el.textContent ?? "") + value;
  fireInputAndChange(el, value);
  return { ...verifyText(el, value, replace), method: "text_content" };
}

/** For resolve mode: focus the field and select its content, so trusted typing replaces it. */
export function selectContentForTyping(el: Element): void {
  (el as HTMLElement).focus({ preventScroll: true });
  if (isInput(el) || isTextArea(el)) {
    try {
      el.select();
    } catch {
      // Some input types (number, email) have no selection API; Control+a in the plan covers them.
    }
    return;
  }
  const selection = windowOf(el).getSelection();
  if (selection) {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    selection.removeAllRanges();
    selection.addRange(range);
  }
}
