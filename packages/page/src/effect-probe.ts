/**
 * What an action changed: captured before a click, compared after. Dispatch mode compares at
 * once; resolve mode stores the baseline under a token that `verify_effect` compares after the
 * caller's trusted input. "No visible change" is reported, never assumed to be success or failure.
 */
import { isInput, isSelect, isTextArea } from "./dom-realm.js";
import { describeForModel } from "./element-facts.js";
import { PageError } from "./page-error.js";
import type { EffectBaseline, PageState } from "./page-state.js";

const OPEN_DIALOG_SELECTOR = "dialog[open], [aria-modal=true], [role=dialog], [role=alertdialog]";

export interface EffectReport {
  changed: boolean;
  changes: string[];
}

/**
 * Open dialogs on the page. Runs before and after every action, so the usual case (none) is one
 * querySelector, and the list is walked by index: Array.from over a NodeList seen through the
 * sandbox's wrapper cost more than the query itself.
 */
function openDialogs(doc: Document): number {
  if (doc.querySelector(OPEN_DIALOG_SELECTOR) === null) return 0;
  const found = doc.querySelectorAll(OPEN_DIALOG_SELECTOR);
  let count = 0;
  for (let i = 0; i < found.length; i++) {
    const el = found[i] as Element;
    if (el.localName === "dialog" && !el.hasAttribute("open")) continue;
    if ((el as HTMLElement).offsetParent !== null || el.getClientRects().length > 0) count++;
  }
  return count;
}

function currentValue(el: Element): string | undefined {
  if (isInput(el) || isTextArea(el) || isSelect(el)) return el.value;
  if ((el as HTMLElement).isContentEditable) return el.textContent ?? "";
  return undefined;
}

/** The element's box as `WxH` px: drags compare it (a resize), other actions skip the layout read. */
function boxSize(el: Element): string {
  const rect = el.getBoundingClientRect();
  return `${Math.round(rect.width)}x${Math.round(rect.height)}`;
}

export function captureBaseline(
  state: PageState,
  el: Element,
  options: { size?: boolean } = {},
): EffectBaseline {
  const active = state.doc.activeElement;
  return {
    ...(options.size ? { size: boxSize(el) } : {}),
    element: new WeakRef(el),
    // document.URL follows pushState and fragment changes as location.href does, and is a
    // plain string read (Location is a cross-origin-checked object, slower from a sandbox).
    url: state.doc.URL,
    checked: isInput(el) ? el.checked : undefined,
    value: currentValue(el),
    expanded: el.getAttribute("aria-expanded"),
    selected: el.getAttribute("aria-selected"),
    pressed: el.getAttribute("aria-pressed"),
    dialogs: openDialogs(state.doc),
    focusedRef: active ? state.registry.peek(active) : undefined,
  };
}

export function compareBaseline(state: PageState, before: EffectBaseline): EffectReport {
  const changes: string[] = [];
  const url = state.doc.URL;
  if (url !== before.url) changes.push(`url changed to ${url}`);
  const el = before.element.deref();
  if (!el?.isConnected) {
    changes.push("the element was removed from the page");
  } else {
    if (isInput(el) && before.checked !== undefined && el.checked !== before.checked) {
      changes.push(el.checked ? "now checked" : "now unchecked");
    }
    const value = currentValue(el);
    if (value !== before.value) changes.push(`value is now ${JSON.stringify(value ?? "")}`);
    const expanded = el.getAttribute("aria-expanded");
    if (expanded !== before.expanded) changes.push(expanded === "true" ? "now expanded" : "now collapsed");
    const selected = el.getAttribute("aria-selected");
    if (selected !== before.selected)
      changes.push(selected === "true" ? "now selected" : "no longer selected");
    const pressed = el.getAttribute("aria-pressed");
    if (pressed !== before.pressed) changes.push(pressed === "true" ? "now pressed" : "no longer pressed");
    if (before.size !== undefined) {
      const size = boxSize(el);
      if (size !== before.size) changes.push(`size changed from ${before.size} to ${size} px`);
    }
  }
  const dialogs = openDialogs(state.doc);
  if (dialogs > before.dialogs) changes.push("a dialog opened");
  if (dialogs < before.dialogs) changes.push("a dialog closed");
  const active = state.doc.activeElement;
  const focusedRef = active ? state.registry.peek(active) : undefined;
  if (active && focusedRef !== before.focusedRef && active !== state.doc.body) {
    const { role, name } = describeForModel(active);
    changes.push(`focus moved to ${role}${name ? ` ${JSON.stringify(name)}` : ""}`);
  }
  return { changed: changes.length > 0, changes };
}

/** The baseline a verify call's `token` names, taken (each is checked once); a typed error if none. */
export function takePendingBaseline(state: PageState, action: string, token: string): EffectBaseline {
  const baseline = state.takeBaseline(token);
  if (!baseline) {
    throw new PageError(
      "not_found",
      `${action}: no pending action with token ${JSON.stringify(token)} (each token is checked once; the page may have reloaded, which itself is an effect).`,
    );
  }
  return baseline;
}
