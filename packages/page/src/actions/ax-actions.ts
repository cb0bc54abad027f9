/**
 * The AX tools (spec 000): get_accessibility_tree, click_ax, type_ax, set_field, hover,
 * drag_drop, plus the resolve-mode follow-ups verify_effect and check_value.
 *
 * Every element action runs the same checks on both paths (stale ref, hidden, disabled,
 * occlusion); dispatch acts here with synthetic events, resolve returns the element, the point
 * and a plan of trusted input steps, and names the follow-up call that verifies the effect.
 */
import { collapseWhitespace, isInput, isSelect, isTextArea, sleep } from "../dom-realm.js";
import { captureBaseline, compareBaseline } from "../effect-probe.js";
import { elementForRef, makeActionable, summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { PageState } from "../page-state.js";
import type { Params } from "../params.js";
import type { ElementSummary, PageResult, PlanStep, VerifyCall } from "../protocol.js";
import { roleOf } from "../roles.js";
import { clickElement, dragAndDrop, hoverAt, parseKeyCombo, pressKey } from "../synthetic-input.js";
import { readBack, selectContentForTyping, textTarget, verifyText, writeText } from "../text-entry.js";
import { buildTree } from "../tree-builder.js";
import { isRendered } from "../visibility.js";

/** Pause after a synthetic click so handlers and framework re-renders run before we look. */
export const EFFECT_SETTLE_MS = 50;
/** Spec 000 set_field delays: before ArrowDown, and between ArrowDown and Enter. */
export const COMBOBOX_OPEN_DELAY_MS = 80;
export const COMBOBOX_HIGHLIGHT_DELAY_MS = 30;

export function getAccessibilityTree(state: PageState, p: Params): PageResult {
  const filter = p.oneOf("filter", ["all", "visible", "interactive"] as const, "all");
  const scopeRef = p.optionalRef("ref_id");
  const maxChars = p.optionalNumber("max_chars");
  if (maxChars !== undefined && maxChars < 200) {
    throw new PageError(
      "bad_params",
      `get_accessibility_tree: "max_chars" must be at least 200, got ${maxChars}`,
    );
  }
  const root = scopeRef === undefined ? undefined : elementForRef(state, scopeRef);
  const started = performance.now();
  const result = buildTree(state.doc, state.registry, {
    filter,
    ...(maxChars ? { maxChars } : {}),
    ...(root ? { root } : {}),
  });
  const buildMs = performance.now() - started;
  return {
    success: true,
    tree: result.tree,
    metadata: {
      url: state.doc.location?.href ?? "",
      title: state.doc.title,
      filter,
      ...(scopeRef !== undefined ? { scope_ref: scopeRef } : {}),
      lines: result.lines,
      chars: result.chars,
      full_chars: result.fullChars,
      truncated: result.truncated,
      refs: result.refs,
      overlays: result.overlays,
      elements_visited: result.elementsVisited,
      last_ref: state.registry.lastIssued,
      build_ms: Math.round(buildMs * 100) / 100,
    },
  };
}

function resolveResult(
  el: Element,
  target: ElementSummary,
  point: { x: number; y: number },
  plan: PlanStep[],
  verify: VerifyCall,
): PageResult {
  return { success: true, mode: "resolve", element: el, target, point, plan, verify };
}

export async function clickAx(state: PageState, p: Params): Promise<PageResult> {
  const el = elementForRef(state, p.ref("ref_id"));
  return clickResolvedElement(state, el, p, true);
}

/** Shared by click_ax and the text/selector/index forms of click. */
export async function clickResolvedElement(
  state: PageState,
  el: Element,
  p: Params,
  occlusion: boolean,
): Promise<PageResult> {
  const mode = p.mode();
  const actionable = makeActionable(state, el, {
    occlusion,
    force: p.boolean("force", false),
    enabled: true,
  });
  const target = summarize(state, el);
  const baseline = captureBaseline(state, el);
  const note = isSelect(el)
    ? `this is a <select>: choose an option with type_ax {ref_id: ${target.ref_id}, value: "<option text>"}`
    : undefined;
  if (mode === "resolve") {
    const token = state.storeBaseline(baseline);
    const { x, y } = actionable.point;
    return {
      ...resolveResult(el, target, actionable.point, [{ kind: "click", x, y }], {
        action: "verify_effect",
        params: { token },
      }),
      ...(note ? { note } : {}),
    };
  }
  if (el.localName === "option") {
    const select = el.closest("select");
    if (select) {
      writeText(select, (el as HTMLOptionElement).value, true);
      return { success: true, clicked: target, effect: compareBaseline(state, baseline) };
    }
  }
  const navigates =
    el.closest("a[href]") !== null && !(el.closest("a[href]")?.getAttribute("href") ?? "").startsWith("#");
  clickElement(el, actionable.local.x, actionable.local.y);
  if (!navigates) await sleep(EFFECT_SETTLE_MS);
  return {
    success: true,
    clicked: target,
    effect: compareBaseline(state, baseline),
    ...(note ? { note } : {}),
  };
}

export function verifyEffect(state: PageState, p: Params): PageResult {
  const token = p.string("token");
  const baseline = state.takeBaseline(token);
  if (!baseline) {
    throw new PageError(
      "not_found",
      `verify_effect: no pending action with token ${JSON.stringify(token)} (each token is checked once; the page may have reloaded, which itself is an effect).`,
    );
  }
  return { success: true, effect: compareBaseline(state, baseline) };
}

function failUnverified(action: string, target: ElementSummary, expected: string, actual: string): PageError {
  return new PageError(
    "unverified",
    `${action}: typed ${JSON.stringify(expected)} into [${target.ref_id}] ${target.role}${target.name ? ` ${JSON.stringify(target.name)}` : ""} but reading it back gives ${JSON.stringify(actual)}, so the text is not proven to be there. The page may reformat, reject or redirect input; re-read the tree before going on.`,
    { verified: false, value: actual, target },
  );
}

function ensureWritable(el: Element, target: ElementSummary, action: string): void {
  if ((isInput(el) || isTextArea(el)) && el.readOnly) {
    throw new PageError(
      "not_editable",
      `${action}: [${target.ref_id}] ${target.role} ${JSON.stringify(target.name)} is read-only, so nothing was typed.`,
      { target },
    );
  }
}

function typingPlan(point: { x: number; y: number }, value: string, replace: boolean): PlanStep[] {
  const plan: PlanStep[] = [{ kind: "click", x: point.x, y: point.y }];
  plan.push({ kind: "keys", keys: [replace ? "Control+a" : "Control+End"] });
  if (replace && value === "") plan.push({ kind: "keys", keys: ["Backspace"] });
  if (value !== "") plan.push({ kind: "text", text: value });
  return plan;
}

export async function typeAx(state: PageState, p: Params): Promise<PageResult> {
  const el = elementForRef(state, p.ref("ref_id"));
  return typeIntoElement(state, el, p.string("value"), p, "type_ax");
}

/** Shared by type_ax and type_text. */
export async function typeIntoElement(
  state: PageState,
  el: Element,
  value: string,
  p: Params,
  action: string,
): Promise<PageResult> {
  const replace = p.boolean("clear", true);
  const { target: field, retargeted } = textTarget(state, el, action);
  const target = summarize(state, field);
  ensureWritable(field, target, action);
  const actionable = makeActionable(state, field, {
    occlusion: true,
    force: p.boolean("force", false),
    enabled: true,
  });
  const extra = retargeted ? { retargeted_to: target } : {};
  if (
    p.mode() === "resolve" &&
    !isSelect(field) &&
    !(isInput(field) && (field.type === "checkbox" || field.type === "radio"))
  ) {
    selectContentForTyping(field);
    return {
      ...resolveResult(field, target, actionable.point, typingPlan(actionable.point, value, replace), {
        action: "check_value",
        params: { ref_id: target.ref_id, expected: value, replace },
      }),
      ...extra,
    };
  }
  const outcome = writeText(field, value, replace);
  if (!outcome.verified) throw failUnverified(action, target, value, outcome.actual);
  return { success: true, verified: true, value: outcome.actual, target, method: outcome.method, ...extra };
}

export function checkValue(state: PageState, p: Params): PageResult {
  const el = elementForRef(state, p.ref("ref_id"));
  const expected = p.string("expected");
  const replace = p.boolean("replace", true);
  const target = summarize(state, el);
  const check = isTextAreaLike(el) ? verifyText(el, expected, replace) : comboboxCheck(el, expected);
  if (!check.verified) throw failUnverified("check_value", target, expected, check.actual);
  return { success: true, verified: true, value: check.actual, target };
}

function isTextAreaLike(el: Element): boolean {
  return isInput(el) || isTextArea(el) || isSelect(el) || (el as HTMLElement).isContentEditable;
}

function comboboxCheck(el: Element, expected: string): { verified: boolean; actual: string } {
  const actual = collapseWhitespace(readBack(el));
  return { verified: actual.toLowerCase().includes(expected.trim().toLowerCase()), actual };
}

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

export async function setField(state: PageState, p: Params): Promise<PageResult> {
  const el = elementForRef(state, p.ref("ref_id"));
  const value = p.string("value");
  const submit = p.boolean("submit", false);
  const mode = p.mode();
  const { target: field } = textTarget(state, el, "set_field");
  const target = summarize(state, field);
  if (!isTextAreaLike(field) && roleOf(field) === "combobox")
    return chooseFromCombobox(state, field, target, value, p);
  ensureWritable(field, target, "set_field");
  const actionable = makeActionable(state, field, {
    occlusion: true,
    force: p.boolean("force", false),
    enabled: true,
  });
  const combobox = behavesAsCombobox(state, field);

  if (mode === "resolve" && !isSelect(field)) {
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
    return { ...resolveResult(field, target, actionable.point, plan, verify), combobox };
  }

  const outcome = writeText(field, value, true);
  if (!outcome.verified) throw failUnverified("set_field", target, value, outcome.actual);
  if (!submit) return { success: true, verified: true, value: outcome.actual, target, combobox };

  const enter = parseKeyCombo("Enter")!;
  if (combobox) {
    await sleep(COMBOBOX_OPEN_DELAY_MS);
    pressKey(field, parseKeyCombo("ArrowDown")!);
    await sleep(COMBOBOX_HIGHLIGHT_DELAY_MS);
    pressKey(field, enter);
    await sleep(EFFECT_SETTLE_MS);
    return {
      success: true,
      verified: true,
      target,
      combobox: true,
      committed: field.isConnected ? collapseWhitespace(readBack(field)) : null,
      expanded: field.getAttribute("aria-expanded") === "true",
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
    success: true,
    verified: true,
    target,
    combobox: false,
    submitted,
    ...(invalid.length > 0
      ? { invalid_fields: invalid, note: "the form was not submitted: these fields are invalid" }
      : {}),
  };
}

async function chooseFromCombobox(
  state: PageState,
  combobox: Element,
  target: ElementSummary,
  value: string,
  p: Params,
): Promise<PageResult> {
  const mode = p.mode();
  const phase = p.optionalString("phase") ?? "open";
  const listboxNow = controlledListbox(state, combobox);
  const open =
    combobox.getAttribute("aria-expanded") === "true" || (listboxNow !== null && isRendered(listboxNow));
  if (!open && phase === "open") {
    const actionable = makeActionable(state, combobox, {
      occlusion: true,
      force: p.boolean("force", false),
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
    success: true,
    verified: true,
    value: check.actual,
    target,
    combobox: true,
    committed: optionText,
  };
}

export async function hover(state: PageState, p: Params): Promise<PageResult> {
  const el = elementForRef(state, p.ref("ref_id"));
  const actionable = makeActionable(state, el, {
    occlusion: true,
    force: p.boolean("force", false),
    enabled: false,
  });
  const target = summarize(state, el);
  const baseline = captureBaseline(state, el);
  if (p.mode() === "resolve") {
    const { x, y } = actionable.point;
    return resolveResult(el, target, actionable.point, [{ kind: "move", x, y }], {
      action: "verify_effect",
      params: { token: state.storeBaseline(baseline) },
    });
  }
  hoverAt(el, actionable.local.x, actionable.local.y);
  await sleep(EFFECT_SETTLE_MS);
  return { success: true, hovered: target, effect: compareBaseline(state, baseline) };
}

export async function dragDrop(state: PageState, p: Params): Promise<PageResult> {
  const fromRef = p.optionalRef("from_ref_id") ?? p.optionalRef("source_ref_id") ?? p.optionalRef("ref_id");
  const toRef = p.optionalRef("to_ref_id") ?? p.optionalRef("target_ref_id");
  if (fromRef === undefined || toRef === undefined) {
    throw new PageError(
      "bad_params",
      `drag_drop: pass "from_ref_id" (what to drag) and "to_ref_id" (where to drop it), as numbers from the tree`,
    );
  }
  const source = elementForRef(state, fromRef);
  const dest = elementForRef(state, toRef);
  const from = makeActionable(state, source, {
    occlusion: true,
    force: p.boolean("force", false),
    enabled: true,
  });
  const to = makeActionable(state, dest, { occlusion: false, force: true, enabled: false });
  // Scrolling the target into view may move the source: measure the source again.
  const fromAgain = makeActionable(state, source, { occlusion: false, force: true, enabled: true });
  const target = summarize(state, source);
  const baseline = captureBaseline(state, source);
  if (p.mode() === "resolve") {
    return resolveResult(
      source,
      target,
      fromAgain.point,
      [{ kind: "drag", from: fromAgain.point, to: to.point }],
      {
        action: "verify_effect",
        params: { token: state.storeBaseline(baseline) },
      },
    );
  }
  void from;
  dragAndDrop(source, fromAgain.local, dest, to.local);
  await sleep(EFFECT_SETTLE_MS);
  return {
    success: true,
    dragged: target,
    dropped_on: summarize(state, dest),
    effect: compareBaseline(state, baseline),
  };
}
