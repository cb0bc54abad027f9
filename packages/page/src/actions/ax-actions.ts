/**
 * The AX tools (spec 000) get_accessibility_tree, click_ax, hover and drag_drop, and the
 * resolve-mode follow-up verify_effect (typing: text-actions.ts; set_field: set-field-action.ts).
 *
 * Every element action runs the same checks on both paths (stale ref, hidden, disabled,
 * occlusion); dispatch acts here with synthetic events, resolve returns the element, the point
 * and a plan of trusted input steps, and names the follow-up call that verifies the effect.
 */

import { diffTrees, swapLastTree } from "../diff.js";
import { isSelect, sleep } from "../dom-realm.js";
import { captureBaseline, compareBaseline, takePendingBaseline } from "../effect-probe.js";
import { type Actionable, elementForRef, makeActionable, summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { EffectBaseline, PageState } from "../page-state.js";
import type { Params } from "../params.js";
import type { ElementSummary, PageResult, PlanStep, VerifyCall, ViewportPoint } from "../protocol.js";
import { clickElement, dragAndDrop, hoverAt } from "../synthetic-input.js";
import { writeText } from "../text-entry.js";
import { buildTree } from "../tree-builder.js";

/** Pause after a synthetic click so handlers and framework re-renders run before we look. */
export const EFFECT_SETTLE_MS = 50;

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
  const findText = p.optionalString("find");
  const findRole = p.optionalString("role");
  const diff = p.boolean("diff", false);
  const started = performance.now();
  const result = buildTree(state.doc, state.registry, {
    filter,
    ...(maxChars ? { maxChars } : {}),
    ...(root ? { root } : {}),
    ...(findText || findRole ? { find: { text: findText, role: findRole } } : {}),
  });
  const buildMs = performance.now() - started;
  // A find answers a question; it is not a view of the page to diff against.
  const previous =
    findText || findRole
      ? undefined
      : swapLastTree(state.doc, `${filter}|${scopeRef ?? ""}`, result.fullLines);
  const changes = diff && previous ? diffTrees(previous, result.fullLines) : undefined;
  return {
    success: true,
    tree: changes ? changes.text : result.tree,
    metadata: {
      url: state.doc.location?.href ?? "",
      title: state.doc.title,
      filter,
      ...(scopeRef !== undefined ? { scope_ref: scopeRef } : {}),
      lines: result.lines,
      chars: result.chars,
      full_chars: result.fullChars,
      truncated: result.truncated,
      ...(result.folded > 0 ? { folded: result.folded } : {}),
      ...(changes
        ? { diff: { added: changes.added, removed: changes.removed, changed: changes.changed } }
        : {}),
      refs: result.refs,
      ref_names: result.refNames,
      overlays: result.overlays,
      elements_visited: result.elementsVisited,
      last_ref: state.registry.lastIssued,
      build_ms: Math.round(buildMs * 100) / 100,
    },
  };
}

export function resolveResult(
  el: Element,
  target: ElementSummary,
  point: { x: number; y: number },
  plan: PlanStep[],
  verify: VerifyCall,
): PageResult {
  return { success: true, mode: "resolve", element: el, target, point, plan, verify };
}

export function clickAx(state: PageState, p: Params): PageResult | Promise<PageResult> {
  const el = elementForRef(state, p.ref("ref_id"));
  return clickResolvedElement(state, el, p, true);
}

/**
 * Shared by click_ax and the text/selector/index forms of click. The resolve path answers
 * synchronously (see handle.ts: no promise on the runner's click path); only a dispatched
 * click waits, for the page to react.
 */
export function clickResolvedElement(
  state: PageState,
  el: Element,
  p: Params,
  occlusion: boolean,
): PageResult | Promise<PageResult> {
  const mode = p.mode();
  const actionable = makeActionable(state, el, {
    occlusion,
    force: p.boolean("force", false),
    enabled: true,
  });
  const target = actionable.summary;
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
  return dispatchClick(state, el, actionable, baseline, note);
}

async function dispatchClick(
  state: PageState,
  el: Element,
  actionable: Actionable,
  baseline: EffectBaseline,
  note: string | undefined,
): Promise<PageResult> {
  const link = el.closest("a[href]");
  const navigates = link !== null && !(link.getAttribute("href") ?? "").startsWith("#");
  clickElement(el, actionable.local.x, actionable.local.y);
  if (!navigates) await sleep(EFFECT_SETTLE_MS);
  return {
    success: true,
    clicked: actionable.summary,
    effect: compareBaseline(state, baseline),
    ...(note ? { note } : {}),
  };
}

export function verifyEffect(state: PageState, p: Params): PageResult {
  return { success: true, effect: compareBaseline(state, takePendingBaseline(state, p)) };
}

export async function hover(state: PageState, p: Params): Promise<PageResult> {
  const el = elementForRef(state, p.ref("ref_id"));
  const actionable = makeActionable(state, el, {
    occlusion: true,
    force: p.boolean("force", false),
    enabled: false,
  });
  const target = actionable.summary;
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

/**
 * Where a drag onto `dest` lets go: a quarter of its box past its centre, in the direction of
 * travel. Still inside a drop zone; and a sortable list or grid (which moves the dragged item
 * once the pointer crosses an item's middle) puts the item where `dest` stood, not beside it.
 */
function pastCentre(from: ViewportPoint, to: ViewportPoint, dest: Element): ViewportPoint {
  const box = dest.getBoundingClientRect();
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  return {
    x: to.x + (Math.abs(dx) >= 1 ? Math.sign(dx) * (box.width / 4) : 0),
    y: to.y + (Math.abs(dy) >= 1 ? Math.sign(dy) * (box.height / 4) : 0),
  };
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
      [{ kind: "drag", from: fromAgain.point, to: pastCentre(fromAgain.point, to.point, dest) }],
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
