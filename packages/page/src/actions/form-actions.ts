/**
 * verify_form (field values of the visible forms, before a submit) and probe_completion (what
 * the agent's `done` blockedDone heuristic needs: open dialogs, visible forms and their fill
 * state, live-region and alert messages).
 */
import type { PageCallParams } from "@webbrain/protocol";
import { collapseWhitespace, isInput, isSelect, isTextArea, truncate } from "../dom-realm.js";
import { describeForModel } from "../element-facts.js";
import { summarize } from "../element-target.js";
import { describeContainer } from "../overlays.js";
import type { PageState } from "../page-state.js";
import type { Answer } from "../protocol.js";
import { roleOf } from "../roles.js";
import { isRendered } from "../visibility.js";

const FIELD_SELECTOR =
  "input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=reset]):not([type=image]), select, textarea, [contenteditable=true], [contenteditable=''], [role=combobox], [role=textbox]";
const LIVE_SELECTOR = "[role=alert], [role=status], [aria-live=polite], [aria-live=assertive], output";
const MESSAGE_MAX_CHARS = 200;
const VALUE_MAX_CHARS = 200;

interface FieldReport {
  ref_id: number;
  role: string;
  name: string;
  type: string;
  value: string;
  checked?: boolean;
  required: boolean;
  valid: boolean;
  validation_message?: string;
}

function fieldReport(state: PageState, el: Element): FieldReport {
  const { ref_id, role, name } = summarize(state, el);
  const input = el as HTMLInputElement;
  const type = isInput(el)
    ? el.type
    : el.localName === "select"
      ? "select"
      : el.localName === "textarea"
        ? "textarea"
        : role;
  let value = "";
  if (isInput(el) || isTextArea(el)) value = type === "password" ? (el.value ? "•••" : "") : el.value;
  else if (isSelect(el))
    value = Array.from(el.selectedOptions)
      .map((o) => o.text)
      .join(", ");
  else value = collapseWhitespace(el.textContent ?? "");
  const valid =
    typeof input.checkValidity === "function"
      ? input.validity.valid
      : el.getAttribute("aria-invalid") !== "true";
  return {
    ref_id,
    role,
    name,
    type,
    value: truncate(value, VALUE_MAX_CHARS),
    ...(isInput(el) && (type === "checkbox" || type === "radio") ? { checked: el.checked } : {}),
    required: el.hasAttribute("required") || el.getAttribute("aria-required") === "true",
    valid,
    ...(!valid && input.validationMessage ? { validation_message: input.validationMessage } : {}),
  };
}

function visibleForms(state: PageState): Element[] {
  return Array.from(state.doc.querySelectorAll("form, [role=form]")).filter(isRendered);
}

export function verifyForm(state: PageState, p: PageCallParams<"verify_form">): Answer<"verify_form"> {
  const selector = p.selector;
  const forms = selector ? Array.from(state.doc.querySelectorAll(selector)) : visibleForms(state);
  const scopes = forms.length > 0 ? forms : [state.doc.body ?? state.doc.documentElement];
  const report = scopes.map((form) => {
    const fields = Array.from(form.querySelectorAll(FIELD_SELECTOR))
      .filter(isRendered)
      .map((f) => fieldReport(state, f));
    return {
      form: form.localName === "body" ? "page" : describeContainer(form),
      fields,
      missing_required: fields
        .filter((f) => f.required && !f.value && f.checked !== true)
        .map((f) => f.ref_id),
      invalid: fields.filter((f) => !f.valid).map((f) => f.ref_id),
    };
  });
  return { details: { forms: report } };
}

/** Whether a field's value differs from the one its markup gave it. */
function changedFromDefault(field: Element): boolean {
  if (isInput(field)) {
    if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
    return field.value !== field.defaultValue;
  }
  if (isTextArea(field)) return field.value !== field.defaultValue;
  if (isSelect(field)) {
    const options = Array.from(field.options);
    // Without a `selected` option in the markup, a single select starts on its first option.
    if (!field.multiple && !options.some((o) => o.defaultSelected)) return field.selectedIndex > 0;
    return options.some((o) => o.selected !== o.defaultSelected);
  }
  // An editor or custom field has no default to compare with: text in it counts as a change.
  return (field.textContent ?? "").trim() !== "";
}

export function probeCompletion(state: PageState): Answer<"probe_completion"> {
  const dialogs = Array.from(
    state.doc.querySelectorAll("dialog[open], [aria-modal=true], [role=dialog], [role=alertdialog]"),
  )
    .filter((el) => (el.localName !== "dialog" || el.hasAttribute("open")) && isRendered(el))
    .map((el) => ({
      ...summarize(state, el),
      label: describeContainer(el),
      modal: el.getAttribute("aria-modal") === "true" || el.localName === "dialog",
    }));
  const forms = visibleForms(state).map((form) => {
    const fields = Array.from(form.querySelectorAll(FIELD_SELECTOR)).filter(isRendered);
    const filled = fields.filter((f) => {
      if (isInput(f) && (f.type === "checkbox" || f.type === "radio")) return f.checked;
      return (isInput(f) || isTextArea(f) || isSelect(f) ? f.value : (f.textContent ?? "")).trim() !== "";
    }).length;
    const invalid = fields.filter(
      (f) =>
        typeof (f as HTMLInputElement).checkValidity === "function" &&
        !(f as HTMLInputElement).validity.valid,
    ).length;
    // Fields a person (or the agent) changed from what the page put there: none means the form
    // is untouched (a fresh "add another" form after a save), not an unfinished one.
    const changed = fields.filter(changedFromDefault).length;
    return { label: describeContainer(form), fields: fields.length, filled, invalid, changed };
  });
  const messages = Array.from(state.doc.querySelectorAll(LIVE_SELECTOR))
    .filter(isRendered)
    .map((el) => ({
      role: roleOf(el) || el.getAttribute("aria-live") || el.localName,
      text: truncate(collapseWhitespace(el.textContent ?? ""), MESSAGE_MAX_CHARS),
    }))
    .filter((m) => m.text !== "");
  const busy = state.doc.querySelector("[aria-busy=true]") !== null;
  const focused = state.doc.activeElement;
  return {
    details: {
      url: state.doc.location?.href ?? "",
      dialogs,
      forms,
      messages,
      busy,
      open_dialog: dialogs.length > 0,
      ...(focused && focused !== state.doc.body ? { focused: describeForModel(focused) } : {}),
    },
  };
}
