/**
 * Control+a / c / x / v for synthetic keys (the add-on). Untrusted key events never run the
 * browser's editing commands, so press_keys does them here:
 * - Control+a selects the focused field's text (or the page's);
 * - Control+c / Control+x run `execCommand("copy"/"cut")`, which fires the page's copy event and
 *   writes the system clipboard where the caller may (the add-on has `clipboardWrite`), and keep
 *   the text in this page layer as well;
 * - Control+v inserts the system clipboard's text when the caller read it and passed it
 *   (`clipboard_text`: the add-on reads it with `clipboardRead` after the permission gate), else
 *   the text kept from a copy in this page; the effect line says which.
 * Trusted keys (the runner) never come here: Firefox runs its own commands, clipboard included.
 */
import { isInput, isTextArea } from "./dom-realm.js";
import type { PageState } from "./page-state.js";
import { isTextEntry } from "./roles.js";
import type { KeyCombo } from "./synthetic-input.js";

type TextField = HTMLInputElement | HTMLTextAreaElement;

function textField(el: Element): TextField | undefined {
  return (isInput(el) || isTextArea(el)) && isTextEntry(el) ? el : undefined;
}

function fieldSelection(field: TextField): { start: number; end: number } | undefined {
  try {
    const start = field.selectionStart ?? 0;
    return { start, end: field.selectionEnd ?? start };
  } catch {
    return undefined; // number, email...: no selection API
  }
}

function selectedText(state: PageState, target: Element): string {
  const field = textField(target);
  const range = field ? fieldSelection(field) : undefined;
  if (field && range) return field.value.slice(range.start, range.end);
  return state.doc.defaultView?.getSelection()?.toString() ?? "";
}

/** Runs the editing command, false where the browser refuses it (no permission, no gesture). */
function editingCommand(doc: Document, command: "copy" | "cut" | "paste"): boolean {
  try {
    return doc.execCommand(command);
  } catch {
    return false;
  }
}

/** Replaces the field's selection with `text`, as typing or pasting would, and tells the page. */
function insertIntoField(field: TextField, text: string, inputType: string): void {
  const range = fieldSelection(field) ?? { start: field.value.length, end: field.value.length };
  field.setRangeText(text, range.start, range.end, "end");
  field.dispatchEvent(
    new InputEvent("input", { bubbles: true, composed: true, inputType, ...(text ? { data: text } : {}) }),
  );
}

/** The editing command a Control chord stands for, done by hand; its effect line, if any. */
export function clipboardKey(
  state: PageState,
  target: Element,
  combo: KeyCombo,
  systemClipboard?: string,
): string | undefined {
  if (!combo.ctrl || combo.alt || combo.meta) return undefined;
  const key = combo.key.key.toLowerCase();
  const field = textField(target);
  if (key === "a") {
    if (field) field.select();
    else if (state.doc.body) state.doc.defaultView?.getSelection()?.selectAllChildren(state.doc.body);
    return field ? "selected the field's text" : "selected the page's text";
  }
  if (key === "c" || key === "x") {
    const text = selectedText(state, target);
    if (!text) return "nothing is selected: nothing was copied";
    const system = editingCommand(state.doc, key === "c" ? "copy" : "cut");
    state.copiedText = text;
    // A cut the browser refused still takes the text out of the field, as the person expects.
    if (key === "x" && field && !system) insertIntoField(field, "", "deleteByCut");
    const where = system ? "the clipboard" : "this page's clipboard (the system clipboard refused)";
    return `${key === "c" ? "copied" : "cut"} ${text.length} chars to ${where}`;
  }
  if (key === "v") {
    if (!field && !(target as HTMLElement).isContentEditable)
      return "no text field has focus: nothing was pasted";
    const fromSystem = systemClipboard !== undefined;
    const text = systemClipboard ?? state.copiedText;
    if (text === undefined)
      return "nothing was copied in this page and the system clipboard was not read: nothing was pasted";
    if (field) insertIntoField(field, text, "insertFromPaste");
    else state.doc.execCommand("insertText", false, text);
    return fromSystem
      ? `pasted ${text.length} chars from the system clipboard`
      : `pasted ${text.length} chars copied in this page (the system clipboard was not read)`;
  }
  return undefined;
}
