/**
 * The AX tools (spec 000) get_accessibility_tree, click_ax, hover and drag_drop, and the
 * resolve-mode follow-up verify_effect (typing: text-actions.ts; set_field: set-field-action.ts).
 *
 * Every element action runs the same checks on both paths (stale ref, hidden, disabled,
 * occlusion); dispatch acts here with synthetic events, resolve returns the element, the point
 * and a plan of trusted input steps, and names the follow-up call that verifies the effect.
 */

import { type PageCallParams, TREE_NODES_PARAM } from "@webbrain/protocol";
import { diffTrees, swapLastTree } from "../diff.js";
import { isSelect, sleep } from "../dom-realm.js";
import { captureBaseline, compareBaseline, takePendingBaseline } from "../effect-probe.js";
import { type Actionable, elementForRef, makeActionable, summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { EffectBaseline, PageState } from "../page-state.js";
import type {
  ActionAnswer,
  Answer,
  ElementSummary,
  PlanStep,
  VerifyCall,
  ViewportPoint,
} from "../protocol.js";
import { clickElement, dragAndDrop, dragToPoint, hoverAt } from "../synthetic-input.js";
import { writeText } from "../text-entry.js";
import { buildTree } from "../tree-builder.js";

/** Pause after a synthetic click so handlers and framework re-renders run before we look. */
export const EFFECT_SETTLE_MS = 50;

/** How long a tree read waits for a document that is still loading and shows nothing yet. */
export const TREE_LOADING_WAIT_MS = 5_000;

/**
 * A document still loading may have no body yet: its empty tree is not the page (the model
 * read it as "the page is blank"). Wait for it (bounded), then say it is loading if it still is.
 */
export function getAccessibilityTree(
  state: PageState,
  p: PageCallParams<"get_accessibility_tree">,
): Answer<"get_accessibility_tree"> | Promise<Answer<"get_accessibility_tree">> {
  const first = readTree(state, p);
  if (!loadingAndEmpty(state, first)) return first;
  return (async () => {
    const deadline = performance.now() + TREE_LOADING_WAIT_MS;
    while (state.doc.readyState === "loading" && performance.now() < deadline) await sleep(50);
    const again = readTree(state, p);
    if (!loadingAndEmpty(state, again)) return again;
    throw new PageError(
      "timeout",
      `The page is still loading after ${TREE_LOADING_WAIT_MS / 1000} s and shows nothing yet (${state.doc.location?.href ?? ""}). Wait a moment and read the tree again.`,
    );
  })();
}

function loadingAndEmpty(state: PageState, result: Answer<"get_accessibility_tree">): boolean {
  if (state.doc.readyState !== "loading") return false;
  return result.details.tree === "" && (result.meta?.lines ?? 0) === 0;
}

function readTree(
  state: PageState,
  p: PageCallParams<"get_accessibility_tree">,
): Answer<"get_accessibility_tree"> {
  const filter = p.filter ?? "all";
  const scopeRef = p.ref_id;
  const maxChars = p.max_chars;
  if (maxChars !== undefined && maxChars < 200) {
    throw new PageError(
      "bad_params",
      `get_accessibility_tree: "max_chars" must be at least 200, got ${maxChars}`,
    );
  }
  const root = scopeRef === undefined ? undefined : elementForRef(state, scopeRef);
  const findText = p.find;
  const findRole = p.role;
  const diff = p.diff ?? false;
  // Code that reads the tree as data asks for nodes (the recipient guard, traces, replay).
  const nodes = p[TREE_NODES_PARAM] ?? false;
  const started = performance.now();
  const result = buildTree(state.doc, state.registry, {
    filter,
    nodes,
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
    details: {
      tree: changes ? changes.text : result.tree,
      metadata: {
        url: state.doc.location?.href ?? "",
        title: state.doc.title,
        filter,
        ...(scopeRef !== undefined ? { scope_ref: scopeRef } : {}),
        truncated: result.truncated,
        ...(result.folded > 0 ? { folded: result.folded } : {}),
        ...(changes
          ? { diff: { added: changes.added, removed: changes.removed, changed: changes.changed } }
          : {}),
        overlays: result.overlays,
        ...(result.walkCut ? { walk_cut: { ...result.walkCut } } : {}),
      },
    },
    // Counts, timing and ref bookkeeping for code; the model reads the tree and the above.
    meta: {
      lines: result.lines,
      chars: result.chars,
      full_chars: result.fullChars,
      refs: result.refs,
      ref_names: result.refNames,
      elements_visited: result.elementsVisited,
      last_ref: state.registry.lastIssued,
      build_ms: Math.round(buildMs * 100) / 100,
      ...(result.nodes ? { [TREE_NODES_PARAM]: result.nodes } : {}),
    },
  };
}

/**
 * A resolve answer: the target for the model, and for the port the element, the point, the plan
 * to press and the call that verifies it. `extra`: more details (a note, the combobox flag).
 */
export function resolveResult<Extra extends object = Record<never, never>>(
  el: Element,
  target: ElementSummary,
  point: { x: number; y: number },
  plan: PlanStep[],
  verify: VerifyCall,
  extra?: Extra,
): ActionAnswer<{ target: ElementSummary } & Extra> {
  return { details: { target, ...(extra as Extra) }, runner: { element: el, point, plan, verify } };
}

export function clickAx(
  state: PageState,
  p: PageCallParams<"click_ax">,
): Answer<"click_ax"> | Promise<Answer<"click_ax">> {
  const el = elementForRef(state, p.ref_id);
  return clickResolvedElement(state, el, p, true);
}

/** How a port asks for an element action: resolve (a plan to press) or dispatch, and `force`. */
export interface ResolveOptions {
  mode?: "dispatch" | "resolve" | undefined;
  force?: boolean | undefined;
}

/**
 * Shared by click_ax and the text/selector/index forms of click. The resolve path answers
 * synchronously (see handle.ts: no promise on the runner's click path); only a dispatched
 * click waits, for the page to react.
 */
export function clickResolvedElement(
  state: PageState,
  el: Element,
  p: ResolveOptions,
  occlusion: boolean,
): Answer<"click_ax"> | Promise<Answer<"click_ax">> {
  const mode = p.mode ?? "dispatch";
  const actionable = makeActionable(state, el, {
    occlusion,
    force: p.force ?? false,
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
    return resolveResult(
      el,
      target,
      actionable.point,
      [{ kind: "click", x, y }],
      { action: "verify_effect", params: { token } },
      note ? { note } : {},
    );
  }
  if (el.localName === "option") {
    const select = el.closest("select");
    if (select) {
      writeText(select, (el as HTMLOptionElement).value, true);
      return { details: { target, effect: compareBaseline(state, baseline) } };
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
): Promise<Answer<"click_ax">> {
  const link = el.closest("a[href]");
  const navigates = link !== null && !(link.getAttribute("href") ?? "").startsWith("#");
  clickElement(el, actionable.local.x, actionable.local.y);
  if (!navigates) await sleep(EFFECT_SETTLE_MS);
  // `target`, as the runner's trusted path answers (its resolve step's field), so a click's
  // result has one shape on both ports and the agent can drop it when it repeats the ref asked.
  return {
    details: {
      target: actionable.summary,
      effect: compareBaseline(state, baseline),
      ...(note ? { note } : {}),
    },
  };
}

export function verifyEffect(state: PageState, p: PageCallParams<"verify_effect">): Answer<"verify_effect"> {
  const baseline = takePendingBaseline(state, "verify_effect", p.token);
  // For the runner only: whether to wait for the link's navigation.
  const followed = baseline.link?.followed();
  return {
    details: { effect: compareBaseline(state, baseline) },
    ...(followed ? { runner: { follows_link: followed } } : {}),
  };
}

export async function hover(state: PageState, p: PageCallParams<"hover">): Promise<Answer<"hover">> {
  const el = elementForRef(state, p.ref_id);
  const actionable = makeActionable(state, el, {
    occlusion: true,
    force: p.force ?? false,
    enabled: false,
  });
  const target = actionable.summary;
  const baseline = captureBaseline(state, el);
  if (p.mode === "resolve") {
    const { x, y } = actionable.point;
    return resolveResult(el, target, actionable.point, [{ kind: "move", x, y }], {
      action: "verify_effect",
      params: { token: state.storeBaseline(baseline) },
    });
  }
  hoverAt(el, actionable.local.x, actionable.local.y);
  await sleep(EFFECT_SETTLE_MS);
  return { details: { target, effect: compareBaseline(state, baseline) } };
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

/** How far inside the bottom-right corner a resize handle is grabbed, px (handles are ~10-15 px). */
const RESIZE_HANDLE_INSET_PX = 4;

/**
 * drag_drop: the source's centre (or, with handle "bottom_right", its resize corner) dragged
 * onto the target's centre, or by dx,dy pixels. Resolve answers one trusted drag step; dispatch
 * sends the pointer/mouse (and HTML5 drag) events a drag produces.
 */
export async function dragDrop(
  state: PageState,
  p: PageCallParams<"drag_drop">,
): Promise<Answer<"drag_drop">> {
  const fromRef = p.from_ref_id ?? p.source_ref_id ?? p.ref_id;
  const toRef = p.to_ref_id ?? p.target_ref_id;
  const { dx, dy } = p;
  const byOffset = toRef === undefined && (dx !== undefined || dy !== undefined);
  if (fromRef === undefined || (toRef === undefined && !byOffset)) {
    throw new PageError(
      "bad_params",
      `drag_drop: pass "from_ref_id" (what to drag) and "to_ref_id" (where to drop it) as numbers from the tree, or dx/dy (pixels to move it by) instead of to_ref_id`,
    );
  }
  const corner = p.handle === "bottom_right";
  const source = elementForRef(state, fromRef);
  makeActionable(state, source, {
    occlusion: !corner,
    force: (p.force ?? false) || corner,
    enabled: true,
  });
  const dest = toRef === undefined ? undefined : elementForRef(state, toRef);
  const to = dest
    ? makeActionable(state, dest, { occlusion: false, force: true, enabled: false })
    : undefined;
  // Scrolling the target into view may move the source: measure the source again.
  const fromAgain = makeActionable(state, source, { occlusion: false, force: true, enabled: true });
  const grab = corner ? cornerOf(source, fromAgain) : { local: fromAgain.local, point: fromAgain.point };
  const shift = { x: dx ?? 0, y: dy ?? 0 };
  const drop = to
    ? { local: to.local, point: to.point }
    : {
        local: { x: grab.local.x + shift.x, y: grab.local.y + shift.y },
        point: { x: grab.point.x + shift.x, y: grab.point.y + shift.y },
      };
  const target = summarize(state, source);
  const baseline = captureBaseline(state, source, { size: true });
  if (p.mode === "resolve") {
    // Onto an element: let go a little past its centre (pastCentre); by offset: exactly there.
    const release = dest ? pastCentre(grab.point, drop.point, dest) : drop.point;
    return resolveResult(source, target, grab.point, [{ kind: "drag", from: grab.point, to: release }], {
      action: "verify_effect",
      params: { token: state.storeBaseline(baseline) },
    });
  }
  if (dest) dragAndDrop(source, grab.local, dest, drop.local);
  else dragToPoint(source, grab.local, drop.local);
  await sleep(EFFECT_SETTLE_MS);
  return {
    details: {
      dragged: target,
      ...(dest ? { dropped_on: summarize(state, dest) } : { moved_by: { dx: shift.x, dy: shift.y } }),
      effect: compareBaseline(state, baseline),
    },
  };
}

/** The element's bottom-right corner, where resize handles sit, in both coordinate spaces. */
function cornerOf(el: Element, centre: Actionable): { local: ViewportPoint; point: ViewportPoint } {
  const rect = el.getBoundingClientRect();
  const local = { x: rect.right - RESIZE_HANDLE_INSET_PX, y: rect.bottom - RESIZE_HANDLE_INSET_PX };
  const offset = { x: centre.point.x - centre.local.x, y: centre.point.y - centre.local.y };
  return { local, point: { x: Math.round(local.x + offset.x), y: Math.round(local.y + offset.y) } };
}
