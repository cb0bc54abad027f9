/**
 * type_ax / type_text (the typing core on both paths) and check_value, the follow-up that proves
 * trusted typing landed. Positive proof: success only when the text is read back from the field.
 */
import type { PageCallParams } from "@webbrain/protocol";
import { collapseWhitespace, isInput, isSelect, isTextArea } from "../dom-realm.js";
import { elementForRef, makeActionable, summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { PageState } from "../page-state.js";
import type { Answer, ElementSummary, PlanStep } from "../protocol.js";
import { isSecretField, shownValue } from "../secret-field.js";
import {
  checkValueForm,
  insertAsPaste,
  readBack,
  selectContentForTyping,
  type TextCheck,
  textTarget,
  valueFormatOf,
  verifyText,
  writeText,
} from "../text-entry.js";
import { type ResolveOptions, resolveResult } from "./ax-actions.js";

/** `field`: the element typed into; a secret field's texts are masked in the error. */
export function failUnverified(
  action: string,
  target: ElementSummary,
  expected: string,
  actual: string,
  field?: Element,
): PageError {
  const secret = field !== undefined && isSecretField(field);
  const shownExpected = field ? shownValue(field, expected) : expected;
  const shownActual = field ? shownValue(field, actual) : actual;
  return new PageError(
    "unverified",
    `${action}: typed ${JSON.stringify(shownExpected)} into [${target.ref_id}] ${target.role}${target.name ? ` ${JSON.stringify(target.name)}` : ""} but reading it back gives ${JSON.stringify(shownActual)}, so the text is not proven to be there. The page may reformat, reject or redirect input; re-read the tree before going on.`,
    { verified: false, value: shownActual, target, ...(secret ? { secret: true } : {}) },
  );
}

/** `secret: true` for a secret field's results (secret-field.ts), else nothing. */
export function secretFlag(field: Element): { secret?: true } {
  return isSecretField(field) ? { secret: true } : {};
}

export function ensureWritable(el: Element, target: ElementSummary, action: string): void {
  if ((isInput(el) || isTextArea(el)) && el.readOnly) {
    throw new PageError(
      "not_editable",
      `${action}: [${target.ref_id}] ${target.role} ${JSON.stringify(target.name)} is read-only, so nothing was typed.`,
      { target },
    );
  }
}

/**
 * The success details for a field that took the text but shows it reformatted (a mask, a number
 * format): not `verified`, and the value it actually holds.
 */
export function reformattedDetails(
  action: string,
  field: Element,
  target: ElementSummary,
  expected: string,
  actual: string,
) {
  const shown = shownValue(field, actual);
  return {
    verified: false,
    reformatted: true,
    value: shown,
    target,
    note: `${action}: the field reformatted what was typed: ${JSON.stringify(shownValue(field, expected))} shows as ${JSON.stringify(shown)} (same letters and digits). Check that this form is what you meant.`,
    ...secretFlag(field),
  } as const;
}

/**
 * Whether an editor may change text typed key by key (continue a list on Enter, indent, close a
 * bracket): text areas and rich editors; a single-line input's key handlers are its own mask.
 */
function mayDivergeWhenTyped(el: Element): boolean {
  return isTextArea(el) || (el as HTMLElement).isContentEditable;
}

export function typingPlan(point: { x: number; y: number }, value: string, replace: boolean): PlanStep[] {
  const plan: PlanStep[] = [{ kind: "click", x: point.x, y: point.y }];
  plan.push({ kind: "keys", keys: [replace ? "Control+a" : "Control+End"] });
  if (replace && value === "") plan.push({ kind: "keys", keys: ["Backspace"] });
  if (value !== "") plan.push({ kind: "text", text: value });
  return plan;
}

export function typeAx(state: PageState, p: PageCallParams<"type_ax">): Answer<"type_ax"> {
  const el = elementForRef(state, p.ref_id);
  return typeIntoElement(state, el, p.value, p, "type_ax");
}

/** How type_ax and type_text are asked to type: replace the value (`clear`, the default) or not. */
export interface TypingOptions extends ResolveOptions {
  clear?: boolean | undefined;
}

/** Shared by type_ax and type_text. Synchronous: nothing here waits (see handle.ts). */
export function typeIntoElement(
  state: PageState,
  el: Element,
  value: string,
  p: TypingOptions,
  action: string,
): Answer<"type_ax"> {
  const replace = p.clear ?? true;
  const { target: field, retargeted } = textTarget(state, el, action);
  const target = summarize(state, field);
  ensureWritable(field, target, action);
  const actionable = makeActionable(state, field, {
    occlusion: true,
    force: p.force ?? false,
    enabled: true,
  });
  const extra = { ...(retargeted ? { retargeted_to: target } : {}), ...secretFlag(field) };
  checkValueForm(field, value, `${action}: [${target.ref_id}] ${target.role}`);
  if (
    p.mode === "resolve" &&
    !isSelect(field) &&
    !valueFormatOf(field) &&
    !(isInput(field) && (field.type === "checkbox" || field.type === "radio"))
  ) {
    selectContentForTyping(field);
    return resolveResult(
      field,
      target,
      actionable.point,
      typingPlan(actionable.point, value, replace),
      {
        action: "check_value",
        params: {
          ref_id: target.ref_id,
          expected: value,
          replace,
          ...(replace && mayDivergeWhenTyped(field) ? { paste_fallback: true } : {}),
        },
      },
      extra,
    );
  }
  const outcome = writeText(field, value, replace);
  if (outcome.reformatted)
    return {
      details: {
        ...reformattedDetails(action, field, target, value, outcome.actual),
        method: outcome.method,
        ...extra,
      },
    };
  if (!outcome.verified) throw failUnverified(action, target, value, outcome.actual, field);
  return {
    details: {
      verified: true,
      value: shownValue(field, outcome.actual),
      target,
      method: outcome.method,
      ...extra,
    },
  };
}

export function checkValue(state: PageState, p: PageCallParams<"check_value">): Answer<"check_value"> {
  const el = elementForRef(state, p.ref_id);
  const expected = p.expected;
  const replace = p.replace ?? true;
  const target = summarize(state, el);
  let check: TextCheck = isTextAreaLike(el) ? verifyText(el, expected, replace) : comboboxCheck(el, expected);
  let pasted = false;
  if (!check.verified && !check.reformatted && replace && p.paste_fallback) {
    // Trusted keys went through the page's key handlers (an editor continued a list on Enter,
    // indented, closed a bracket): the text is put in once more, whole, as a paste would.
    check = insertAsPaste(el, expected);
    pasted = true;
  }
  if (check.reformatted)
    return { details: reformattedDetails("check_value", el, target, expected, check.actual) };
  if (!check.verified) throw failUnverified("check_value", target, expected, check.actual, el);
  return {
    details: {
      verified: true,
      value: shownValue(el, check.actual),
      target,
      ...(pasted
        ? {
            method: "insert_text",
            note: "Typed key by key, the editor changed the text (it reacts to keys such as Enter), so it was inserted whole, as a paste.",
          }
        : {}),
      ...secretFlag(el),
    },
  };
}

export function isTextAreaLike(el: Element): boolean {
  return isInput(el) || isTextArea(el) || isSelect(el) || (el as HTMLElement).isContentEditable;
}

export function comboboxCheck(el: Element, expected: string): { verified: boolean; actual: string } {
  const actual = collapseWhitespace(readBack(el));
  return { verified: actual.toLowerCase().includes(expected.trim().toLowerCase()), actual };
}
