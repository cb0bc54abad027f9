/**
 * set_field (spec 000): type, then commit. A combobox (role, aria-autocomplete, a controlled or
 * visible listbox) is committed with ArrowDown + Enter after short delays; a plain field submits
 * its form (requestSubmit) unless a field is invalid; a combobox that takes no text is opened and
 * its matching option clicked (in resolve mode as two chained plans).
 */
import type { PageCallParams } from "@webbrain/protocol";
import { collapseWhitespace, isInput, isSelect, isTextArea, sleep } from "../dom-realm.js";
import { captureBaseline } from "../effect-probe.js";
import { elementForRef, makeActionable, summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { PageState } from "../page-state.js";
import type { Answer, ElementSummary, VerifyCall } from "../protocol.js";
import { roleOf } from "../roles.js";
import { shownValue } from "../secret-field.js";
import { clickElement, parseKeyCombo, pressKey } from "../synthetic-input.js";
import {
  checkValueForm,
  readBack,
  selectContentForTyping,
  textTarget,
  valueFormatOf,
  writeText,
} from "../text-entry.js";
import { isRendered } from "../visibility.js";
import { EFFECT_SETTLE_MS, resolveResult } from "./ax-actions.js";
import {
  comboboxCheck,
  ensureWritable,
  failUnverified,
  isTextAreaLike,
  reformattedDetails,
  secretFlag,
  typingPlan,
} from "./text-actions.js";

/** Spec 000 set_field delays: before ArrowDown, and between ArrowDown and Enter. */
export const COMBOBOX_OPEN_DELAY_MS = 80;
export const COMBOBOX_HIGHLIGHT_DELAY_MS = 30;

function controlledListbox(state: PageState, el: Element): Element | null {
  for (const attribute of ["aria-controls", "aria-owns"]) {
    const ids = el.getAttribute(attribute);
    if (!ids) continue;
    for (const id of ids.split(/\s+/)) {
      const found = el.ownerDocument.getElementById(id);
      if (found)
        return found.matches("[role=listbox]") ? found : (found.querySelector("[role=listbox]") ?? found);
    }
  }
  for (const listbox of Array.from(state.doc.querySelectorAll("[role=listbox]"))) {
    if (isRendered(listbox)) return listbox;
  }
  return null;
}

/** Spec 000 set_field detection: combobox roles, autocomplete, controls a listbox, or a listbox is open. */
function behavesAsCombobox(state: PageState, el: Element): boolean {
  const role = roleOf(el);
  if (role === "combobox" || role === "searchbox" || el.getAttribute("role") === "searchbox") return true;
  if (el.hasAttribute("aria-autocomplete") || el.getAttribute("aria-expanded") === "true") return true;
  if (isInput(el) && el.hasAttribute("list")) return true;
  const listbox = controlledListbox(state, el);
  return listbox !== null && isRendered(listbox);
}

function findOption(listbox: Element, value: string): Element | undefined {
  const options = Array.from(listbox.querySelectorAll("[role=option]")).filter(isRendered);
  const wanted = value.trim().toLowerCase();
  const text = (o: Element) => collapseWhitespace(o.textContent ?? "").toLowerCase();
  return (
    options.find((o) => text(o) === wanted) ??
    options.find((o) => text(o).startsWith(wanted)) ??
    options.find((o) => text(o).includes(wanted))
  );
}

export async function setField(
  state: PageState,
  p: PageCallParams<"set_field">,
): Promise<Answer<"set_field">> {
  const el = elementForRef(state, p.ref_id);
  const value = p.value;
  const submit = p.submit ?? false;
  const mode = p.mode ?? "dispatch";
  const { target: field } = textTarget(state, el, "set_field");
  const target = summarize(state, field);
  if (!isTextAreaLike(field) && roleOf(field) === "combobox")
    return chooseFromCombobox(state, field, target, value, p);
  ensureWritable(field, target, "set_field");
  const actionable = makeActionable(state, field, {
    occlusion: true,
    force: p.force ?? false,
    enabled: true,
  });
  const combobox = behavesAsCombobox(state, field);
  checkValueForm(field, value, `set_field: [${target.ref_id}] ${target.role}`);

  if (mode === "resolve" && !isSelect(field) && !valueFormatOf(field)) {
    selectContentForTyping(field);
    const plan = typingPlan(actionable.point, value, true);
    if (submit && combobox) {
      plan.push({ kind: "pause", ms: COMBOBOX_OPEN_DELAY_MS }, { kind: "keys", keys: ["ArrowDown"] });
      plan.push({ kind: "pause", ms: COMBOBOX_HIGHLIGHT_DELAY_MS }, { kind: "keys", keys: ["Enter"] });
    } else if (submit) {
      plan.push({ kind: "keys", keys: ["Enter"] });
    }
    // After a combobox commit the field shows the chosen option, not necessarily the typed text.
    const verify: VerifyCall = submit
      ? { action: "verify_effect", params: { token: state.storeBaseline(captureBaseline(state, field)) } }
      : { action: "check_value", params: { ref_id: target.ref_id, expected: value, replace: true } };
    return resolveResult(field, target, actionable.point, plan, verify, { combobox, ...secretFlag(field) });
  }

  const outcome = writeText(field, value, true);
  if (outcome.reformatted && !submit)
    return {
      details: { ...reformattedDetails("set_field", field, target, value, outcome.actual), combobox },
    };
  if (!outcome.verified && !outcome.reformatted)
    throw failUnverified("set_field", target, value, outcome.actual, field);
  const secret = secretFlag(field);
  if (!submit)
    return {
      details: {
        verified: true,
        value: shownValue(field, outcome.actual),
        target,
        combobox,
        ...secret,
      },
    };

  const enter = parseKeyCombo("Enter")!;
  // Submitted after a reformat: said so, with what the field held, not `verified`.
  const typed = outcome.reformatted
    ? { verified: false, reformatted: true, value: shownValue(field, outcome.actual) }
    : { verified: true };
  if (combobox) {
    await sleep(COMBOBOX_OPEN_DELAY_MS);
    pressKey(field, parseKeyCombo("ArrowDown")!);
    await sleep(COMBOBOX_HIGHLIGHT_DELAY_MS);
    pressKey(field, enter);
    await sleep(EFFECT_SETTLE_MS);
    return {
      details: {
        ...typed,
        target,
        combobox: true,
        committed: field.isConnected ? shownValue(field, collapseWhitespace(readBack(field))) : null,
        expanded: field.getAttribute("aria-expanded") === "true",
      },
    };
  }
  const allowed = pressKey(field, enter);
  const form = (field as HTMLInputElement).form ?? field.closest("form");
  let submitted = false;
  let invalid: ElementSummary[] = [];
  if (allowed && form && !isTextArea(field)) {
    invalid = Array.from(form.elements)
      .filter(
        (f) =>
          typeof (f as HTMLInputElement).checkValidity === "function" &&
          !(f as HTMLInputElement).checkValidity(),
      )
      .map((f) => summarize(state, f));
    if (invalid.length === 0) {
      form.requestSubmit();
      submitted = true;
    }
  }
  await sleep(EFFECT_SETTLE_MS);
  return {
    details: {
      ...typed,
      target,
      combobox: false,
      submitted,
      ...secret,
      ...(invalid.length > 0
        ? { invalid_fields: invalid, note: "the form was not submitted: these fields are invalid" }
        : {}),
    },
  };
}

async function chooseFromCombobox(
  state: PageState,
  combobox: Element,
  target: ElementSummary,
  value: string,
  p: PageCallParams<"set_field">,
): Promise<Answer<"set_field">> {
  const mode = p.mode ?? "dispatch";
  const phase = p.phase ?? "open";
  const listboxNow = controlledListbox(state, combobox);
  const open =
    combobox.getAttribute("aria-expanded") === "true" || (listboxNow !== null && isRendered(listboxNow));
  if (!open && phase === "open") {
    const actionable = makeActionable(state, combobox, {
      occlusion: true,
      force: p.force ?? false,
      enabled: true,
    });
    if (mode === "resolve") {
      return resolveResult(
        combobox,
        target,
        actionable.point,
        [{ kind: "click", x: actionable.point.x, y: actionable.point.y }],
        {
          action: "set_field",
          params: { ref_id: target.ref_id, value, mode: "resolve", phase: "choose" },
        },
      );
    }
    clickElement(combobox, actionable.local.x, actionable.local.y);
    await sleep(COMBOBOX_OPEN_DELAY_MS);
  }
  const listbox = controlledListbox(state, combobox);
  const option = listbox ? findOption(listbox, value) : undefined;
  if (!option) {
    const names = listbox
      ? Array.from(listbox.querySelectorAll("[role=option]")).map((o) =>
          collapseWhitespace(o.textContent ?? ""),
        )
      : [];
    throw new PageError(
      "not_found",
      `set_field: ${target.role} ${JSON.stringify(target.name)} has no option matching ${JSON.stringify(value)}${names.length ? `; its options are ${names.map((n) => JSON.stringify(n)).join(", ")}` : " (no listbox opened)"}.`,
      { target, options: names },
    );
  }
  const optionPoint = makeActionable(state, option, { occlusion: true, force: false, enabled: true });
  const optionText = collapseWhitespace(option.textContent ?? "");
  if (mode === "resolve") {
    return resolveResult(
      option,
      summarize(state, option),
      optionPoint.point,
      [{ kind: "click", x: optionPoint.point.x, y: optionPoint.point.y }],
      {
        action: "check_value",
        params: { ref_id: target.ref_id, expected: optionText },
      },
    );
  }
  clickElement(option, optionPoint.local.x, optionPoint.local.y);
  await sleep(EFFECT_SETTLE_MS);
  const check = comboboxCheck(combobox, optionText);
  if (!check.verified) throw failUnverified("set_field", target, optionText, check.actual);
  return {
    details: {
      verified: true,
      value: check.actual,
      target,
      combobox: true,
      committed: optionText,
    },
  };
}
