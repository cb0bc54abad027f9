/**
 * type_text and press_keys. Synthetic keys cannot trigger browser default actions, so the ones
 * agents rely on are done by hand (spec 000): Tab moves focus through the tab order, Enter in a
 * form field submits the form (requestSubmit), Enter/Space on a button clicks it, Escape closes
 * an open modal <dialog> when the page does not handle it, and Control+a/c/x/v select, copy and
 * paste (clipboard-keys.ts).
 */
import type { PageCallParams } from "@webbrain/protocol";
import { clipboardKey } from "../clipboard-keys.js";
import { isInput, shadowRootOf } from "../dom-realm.js";
import { captureBaseline, compareBaseline, takePendingBaseline } from "../effect-probe.js";
import { elementForRef, summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { PageState } from "../page-state.js";
import type { Answer, ElementSummary } from "../protocol.js";
import { isTextEntry } from "../roles.js";
import { type KeyCombo, parseKeyCombo, pressKey } from "../synthetic-input.js";
import { isRendered } from "../visibility.js";
import { typeIntoElement } from "./text-actions.js";

const FOCUSABLE_SELECTOR =
  "a[href], button, input:not([type=hidden]), select, textarea, summary, iframe, [tabindex], [contenteditable]:not([contenteditable=false])";
const MAX_KEYS_PER_CALL = 50;

/** The focused element, looking into open shadow roots. */
export function deepActiveElement(doc: Document): Element | null {
  let active: Element | null = doc.activeElement;
  for (let guard = 0; active && guard < 32; guard++) {
    const inner = shadowRootOf(active)?.activeElement ?? null;
    if (!inner) break;
    active = inner;
  }
  return active;
}

export async function typeText(
  state: PageState,
  p: PageCallParams<"type_text">,
): Promise<Answer<"type_text">> {
  const text = p.text;
  let el: Element | null = null;
  if (p.ref_id !== undefined) el = elementForRef(state, p.ref_id);
  else if (p.selector) {
    const selector = p.selector;
    try {
      const all = Array.from(state.doc.querySelectorAll(selector)).filter(isRendered);
      if (all.length > 1)
        throw new PageError(
          "ambiguous",
          `type_text: selector ${JSON.stringify(selector)} matches ${all.length} visible elements; use a more specific selector or type_ax with a ref.`,
          { ambiguous: true, candidates: all.slice(0, 10).map((e) => summarize(state, e)) },
        );
      el = all[0] ?? null;
    } catch (error) {
      if (error instanceof PageError) throw error;
      throw new PageError(
        "bad_params",
        `type_text: ${JSON.stringify(selector)} is not a valid CSS selector.`,
      );
    }
    if (!el)
      throw new PageError("not_found", `type_text: no visible element matches ${JSON.stringify(selector)}.`);
  } else {
    el = deepActiveElement(state.doc);
    if (!el || el === state.doc.body || !isTextEntry(el)) {
      throw new PageError(
        "not_found",
        `type_text: no text field is focused. Pass ref_id (from the tree) or selector to say where to type.`,
      );
    }
  }
  return typeIntoElement(state, el, text, p, "type_text");
}

function tabOrder(doc: Document): HTMLElement[] {
  const all = Array.from(doc.querySelectorAll(FOCUSABLE_SELECTOR)) as HTMLElement[];
  const usable = all.filter((el) => el.tabIndex >= 0 && !el.matches(":disabled") && isRendered(el));
  const positive = usable.filter((el) => el.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex);
  return [...positive, ...usable.filter((el) => el.tabIndex === 0)];
}

function moveFocus(doc: Document, backwards: boolean): Element | null {
  const order = tabOrder(doc);
  if (order.length === 0) return null;
  const current = doc.activeElement as HTMLElement | null;
  const index = current ? order.indexOf(current) : -1;
  const next = backwards
    ? order[index <= 0 ? order.length - 1 : index - 1]
    : order[(index + 1) % order.length];
  next?.focus();
  return next ?? null;
}

function defaultAction(
  state: PageState,
  target: Element,
  combo: KeyCombo,
  systemClipboard?: string,
): string | undefined {
  const key = combo.key.key;
  const edit = clipboardKey(state, target, combo, systemClipboard);
  if (edit) return edit;
  if (key === "Tab" && !combo.ctrl && !combo.alt && !combo.meta) {
    const next = moveFocus(state.doc, combo.shift);
    return next ? `focus moved to [${summarize(state, next).ref_id}]` : undefined;
  }
  if (key === "Enter" && !combo.shift && !combo.ctrl) {
    if (isInput(target) && isTextEntry(target) && target.form) {
      target.form.requestSubmit();
      return "form submitted (requestSubmit)";
    }
    if (target.matches("button, a[href], summary, [role=button], [role=link]")) {
      (target as HTMLElement).click();
      return "activated the focused element";
    }
  }
  if (
    key === " " &&
    target.matches("button, summary, [role=button], input[type=checkbox], input[type=radio]")
  ) {
    (target as HTMLElement).click();
    return "activated the focused element";
  }
  if (key === "Escape") {
    const dialogs = Array.from(state.doc.querySelectorAll("dialog[open]")) as HTMLDialogElement[];
    const last = dialogs[dialogs.length - 1];
    if (last) {
      last.close();
      return "closed the open dialog";
    }
  }
  return undefined;
}

/** The keys of a call: `keys` (one string, split at spaces and commas, or a list) or `key`. */
function parseKeys(p: { keys?: string | string[] | undefined; key?: string | undefined }): KeyCombo[] {
  const raw = p.keys ?? p.key;
  const list = Array.isArray(raw) ? raw : raw?.trim().split(/[\s,]+/);
  if (!list || list.length === 0) {
    throw new PageError(
      "bad_params",
      `press_keys: pass "keys", e.g. "Enter", "Escape", "Control+a" or a list of them.`,
    );
  }
  if (list.length > MAX_KEYS_PER_CALL)
    throw new PageError(
      "bad_params",
      `press_keys: at most ${MAX_KEYS_PER_CALL} keys per call, got ${list.length}.`,
    );
  return list.map((item) => {
    const combo = parseKeyCombo(item);
    if (!combo)
      throw new PageError(
        "bad_params",
        `press_keys: unknown key ${JSON.stringify(item)}; use names like Enter, Escape, Tab, ArrowDown, Backspace, Space, a, Control+a, Shift+Tab.`,
      );
    return combo;
  });
}

export async function pressKeys(
  state: PageState,
  p: PageCallParams<"press_keys">,
): Promise<Answer<"press_keys">> {
  const combos = parseKeys(p);
  const target = p.ref_id !== undefined ? elementForRef(state, p.ref_id) : null;
  if (target) (target as HTMLElement).focus?.({ preventScroll: false });
  if (p.mode === "resolve") {
    const focused = deepActiveElement(state.doc);
    const keys = combos.map((c) => c.text);
    // The keys go to whatever has focus; its state (and the page's) is the baseline to compare.
    const receiver = focused ?? state.doc.body ?? state.doc.documentElement;
    const token = state.storeBaseline(captureBaseline(state, receiver));
    const summary = focusSummary(state, focused);
    return {
      details: summary ? { focused: summary } : {},
      runner: { plan: [{ kind: "keys", keys }], verify: { action: "verify_keys", params: { token, keys } } },
    };
  }
  const effects: string[] = [];
  const systemClipboard = p.clipboard_text;
  for (const combo of combos) {
    const active = target ?? deepActiveElement(state.doc) ?? state.doc.body;
    const el = active ?? state.doc.documentElement;
    const allowed = pressKey(el, combo);
    if (allowed && el.isConnected) {
      const effect = defaultAction(state, el, combo, systemClipboard);
      if (effect) effects.push(`${combo.text}: ${effect}`);
    }
  }
  const summary = focusSummary(state, deepActiveElement(state.doc));
  return {
    details: {
      pressed: combos.map((c) => c.text),
      effects,
      ...(summary ? { focused: summary } : {}),
    },
  };
}

/**
 * press_keys' verify call after trusted keys: what the keys changed (focus, value, checked,
 * expanded, dialogs, URL) and what has focus now (`focused: null` for the page itself), so the
 * model never reads the focus from before the keys.
 */
export function verifyKeys(state: PageState, p: PageCallParams<"verify_keys">): Answer<"verify_keys"> {
  const baseline = takePendingBaseline(state, "verify_keys", p.token);
  return {
    details: {
      pressed: parseKeys(p).map((combo) => combo.text),
      effect: compareBaseline(state, baseline),
      focused: focusSummary(state, deepActiveElement(state.doc)) ?? null,
    },
  };
}

/** The focused element as the model sees it; undefined when focus is on the page itself. */
function focusSummary(state: PageState, focused: Element | null): ElementSummary | undefined {
  return focused && focused !== state.doc.body ? summarize(state, focused) : undefined;
}
