/**
 * The legacy `click` tool: by text, CSS selector, index (from get_interactive_elements) or x,y.
 *
 * Overlay defenses (spec 000): text matching is scoped to the topmost modal when one is open;
 * matches are tried exact, then prefix, then contains; labels map to their controls; with no
 * match and no modal the page is scrolled down up to 3 times and searched again. More than one
 * match is refused with the rich ambiguity payload, each candidate carrying a ref.
 * x,y clicks skip the occlusion test (the caller chose the point).
 */
import type { PageCallParams } from "@webbrain/protocol";
import { accessibleName, boundedText } from "../accessible-name.js";
import { collapseWhitespace, deepElementFromPoint, isElement, shadowRootOf, sleep } from "../dom-realm.js";
import { captureBaseline, compareBaseline } from "../effect-probe.js";
import { interactiveRole } from "../element-facts.js";
import { elementForRef, summarize } from "../element-target.js";
import { containerLabel, describeContainer, findTopmostModal } from "../overlays.js";
import { PageError } from "../page-error.js";
import type { PageState } from "../page-state.js";
import type { Answer } from "../protocol.js";
import { roleOf } from "../roles.js";
import { clickAtPoint } from "../synthetic-input.js";
import { isRendered } from "../visibility.js";
import { clickResolvedElement, EFFECT_SETTLE_MS, resolveResult } from "./ax-actions.js";

const CLICKABLE_SELECTOR =
  "a, button, input:not([type=hidden]), select, textarea, summary, label, option, [role=button], [role=link], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], [role=tab], [role=option], [role=checkbox], [role=radio], [role=switch], [role=treeitem], [role=combobox], [onclick], [tabindex], [contenteditable]";
/** Text clicks scroll down and retry this many times when nothing matches (lazy content). */
const SCROLL_RETRIES = 3;
const SCROLL_RETRY_SETTLE_MS = 150;
const CANDIDATE_TEXT_MAX_CHARS = 80;
const MAX_CANDIDATES_REPORTED = 10;

type MatchMode = "exact" | "prefix" | "contains";

function collectClickables(root: ParentNode, into: Element[]): void {
  for (const el of Array.from(root.querySelectorAll("*"))) {
    if (el.matches(CLICKABLE_SELECTOR)) into.push(el);
    const shadow = shadowRootOf(el);
    if (shadow) collectClickables(shadow, into);
  }
}

function candidateText(el: Element): string {
  const base = roleOf(el);
  const role = interactiveRole(el, base, false, false) ?? (base || "clickable");
  const name = accessibleName(el, role).name;
  return collapseWhitespace(name || boundedText(el, CANDIDATE_TEXT_MAX_CHARS)).toLowerCase();
}

function matches(text: string, wanted: string, mode: MatchMode): boolean {
  if (mode === "exact") return text === wanted;
  if (mode === "prefix") return text.startsWith(wanted);
  return text.includes(wanted);
}

/** Labels stand for their control; keep the innermost of nested matches. */
function normalizeMatches(found: Element[]): Element[] {
  const mapped = found.map((el) =>
    el.localName === "label" ? ((el as HTMLLabelElement).control ?? el) : el,
  );
  const unique = Array.from(new Set(mapped));
  return unique.filter((el) => !unique.some((other) => other !== el && el.contains(other)));
}

function findByText(
  scope: ParentNode,
  text: string,
  explicit: MatchMode | undefined,
): { found: Element[]; mode: MatchMode } {
  const wanted = collapseWhitespace(text).toLowerCase();
  const clickables: Element[] = [];
  collectClickables(scope, clickables);
  const visible = clickables.filter(isRendered);
  const texts = new Map(visible.map((el) => [el, candidateText(el)] as const));
  const modes: MatchMode[] = explicit ? [explicit] : ["exact", "prefix", "contains"];
  let last: MatchMode = modes[0]!;
  for (const mode of modes) {
    last = mode;
    const found = normalizeMatches(visible.filter((el) => matches(texts.get(el) ?? "", wanted, mode)));
    if (found.length > 0) return { found, mode };
  }
  return { found: [], mode: last };
}

function ambiguity(state: PageState, found: Element[], how: string): PageError {
  const candidates = found.slice(0, MAX_CANDIDATES_REPORTED).map((el, index) => {
    const rect = el.getBoundingClientRect();
    const summary = summarize(state, el);
    return {
      index,
      ref_id: summary.ref_id,
      tag: el.localName,
      role: summary.role,
      text: summary.name || collapseWhitespace(boundedText(el, CANDIDATE_TEXT_MAX_CHARS)),
      cx: Math.round(rect.left + rect.width / 2),
      cy: Math.round(rect.top + rect.height / 2),
      rect: {
        x: Math.round(rect.left),
        y: Math.round(rect.top),
        width: Math.round(rect.width),
        height: Math.round(rect.height),
      },
      ancestor: containerLabel(el),
    };
  });
  const listing = candidates
    .map((c) => `[${c.ref_id}] ${c.role} ${JSON.stringify(c.text)} in ${c.ancestor}`)
    .join("; ");
  return new PageError(
    "ambiguous",
    `click: ${found.length} elements match ${how}: ${listing}. Nothing was clicked. Use click_ax with the ref of the one you mean, or pass match_index.`,
    { ambiguous: true, candidates },
  );
}

export async function click(state: PageState, p: PageCallParams<"click">): Promise<Answer<"click">> {
  if (p.x !== undefined || p.y !== undefined) return clickAtCoordinates(state, p, p.x, p.y);
  const matchIndex = p.match_index;
  if (p.text) {
    const text = p.text;
    const explicit = p.match;
    const modal = findTopmostModal(state.doc);
    let result = findByText(modal ?? state.doc, text, explicit);
    for (let retry = 0; result.found.length === 0 && !modal && retry < SCROLL_RETRIES; retry++) {
      const view = state.doc.defaultView;
      if (!view) break;
      const before = view.scrollY;
      view.scrollBy({ top: view.innerHeight * 0.8, behavior: "instant" });
      if (view.scrollY === before) break;
      await sleep(SCROLL_RETRY_SETTLE_MS);
      result = findByText(state.doc, text, explicit);
    }
    if (result.found.length === 0) {
      const where = modal
        ? ` inside the open ${describeContainer(modal)} (it covers the page; close it or act inside it)`
        : "";
      throw new PageError(
        "not_found",
        `click: nothing clickable matches text ${JSON.stringify(text)}${where}. Take a snapshot (get_accessibility_tree) and use click_ax with a ref.`,
        modal ? { scoped_to: describeContainer(modal) } : {},
      );
    }
    const chosen = pick(
      state,
      result.found,
      matchIndex,
      `text ${JSON.stringify(text)} (${result.mode} match)`,
    );
    const outcome = await clickResolvedElement(state, chosen, p, true);
    return modal
      ? { ...outcome, details: { ...outcome.details, scoped_to: describeContainer(modal) } }
      : outcome;
  }
  if (p.selector) {
    const selector = p.selector;
    let all: Element[];
    try {
      all = Array.from(state.doc.querySelectorAll(selector));
    } catch {
      throw new PageError("bad_params", `click: ${JSON.stringify(selector)} is not a valid CSS selector.`);
    }
    const visible = all.filter(isRendered);
    if (visible.length === 0) {
      throw new PageError(
        "not_found",
        `click: selector ${JSON.stringify(selector)} matches ${all.length} element(s), none visible.`,
      );
    }
    const chosen = pick(state, visible, matchIndex, `selector ${JSON.stringify(selector)}`);
    return clickResolvedElement(state, chosen, p, true);
  }
  if (p.index !== undefined) {
    const index = p.index;
    const ref = state.interactiveList[index];
    if (ref === undefined) {
      throw new PageError(
        "not_found",
        `click: no element has index ${index}; indexes come from the latest get_interactive_elements (it listed ${state.interactiveList.length}).`,
      );
    }
    return clickResolvedElement(state, elementForRef(state, ref), p, true);
  }
  throw new PageError("bad_params", `click: pass one of "text", "selector", "index", or "x" and "y".`);
}

function pick(state: PageState, found: Element[], matchIndex: number | undefined, how: string): Element {
  if (matchIndex !== undefined) {
    const chosen = found[matchIndex];
    if (!chosen)
      throw new PageError(
        "not_found",
        `click: match_index ${matchIndex} is out of range; ${found.length} elements match ${how}.`,
      );
    return chosen;
  }
  if (found.length > 1) throw ambiguity(state, found, how);
  return found[0]!;
}

async function clickAtCoordinates(
  state: PageState,
  p: PageCallParams<"click">,
  x: number | undefined,
  y: number | undefined,
): Promise<Answer<"click">> {
  if (x === undefined) throw new PageError("bad_params", `click: "x" is required`);
  if (y === undefined) throw new PageError("bad_params", `click: "y" is required`);
  const view = state.doc.defaultView;
  if (view && (x < 0 || y < 0 || x >= view.innerWidth || y >= view.innerHeight)) {
    throw new PageError(
      "bad_params",
      `click: point (${x}, ${y}) is outside the viewport (${view.innerWidth}x${view.innerHeight}); scroll first or use a ref.`,
    );
  }
  const hit = deepElementFromPoint(state.doc, x, y);
  if (!hit || !isElement(hit)) throw new PageError("not_found", `click: nothing at (${x}, ${y}).`);
  const target = summarize(state, hit);
  const baseline = captureBaseline(state, hit);
  if (p.mode === "resolve") {
    return resolveResult(hit, target, { x, y }, [{ kind: "click", x, y }], {
      action: "verify_effect",
      params: { token: state.storeBaseline(baseline) },
    });
  }
  clickAtPoint(hit, x, y);
  await sleep(EFFECT_SETTLE_MS);
  return { details: { target, effect: compareBaseline(state, baseline) } };
}
