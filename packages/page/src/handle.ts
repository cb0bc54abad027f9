/**
 * `handle(action, params)`: the page layer's one entry. JSON in, one JSON object out.
 * `handleJson(action, paramsJson)` is the same entry with text on both sides (see createPageLayer).
 *
 * Invariants:
 * - Never throws: failures become `{success: false, error, code, details?}`; a success is
 *   `{success: true, details, meta?, runner?}` (@webbrain/protocol page-answer.ts).
 * - `ref_floor` (any action) raises the ref counter so refs stay unique across the documents of
 *   one tab: callers pass the highest ref they have seen.
 * - The state (registry, pending verifications) belongs to the realm that installed this script,
 *   and each action runs on the realm's document *now* (see createRealmPageLayer).
 */

import type { PageCallParams, PageLayerActionName } from "@webbrain/protocol";
import { clickAx, dragDrop, getAccessibilityTree, hover, verifyEffect } from "./actions/ax-actions.js";
import { click } from "./actions/click-action.js";
import { conversationHeader } from "./actions/conversation-header.js";
import { probeCompletion, verifyForm } from "./actions/form-actions.js";
import { getFrames, getShadowDom, iframeRead } from "./actions/frame-actions.js";
import { pressKeys, typeText, verifyKeys } from "./actions/keyboard-actions.js";
import {
  extractData,
  getInteractiveElements,
  getSelection,
  inspectElementStyles,
  readPage,
  readPageSource,
  refsOf,
} from "./actions/reading-actions.js";
import { scroll } from "./actions/scroll-action.js";
import { selectText } from "./actions/selection-actions.js";
import { setField } from "./actions/set-field-action.js";
import { checkValue, typeAx } from "./actions/text-actions.js";
import { waitForElement, waitForStable } from "./actions/wait-actions.js";
import { readCallParams } from "./call-params.js";
import { CALL_SCHEMAS } from "./call-schemas.js";
import { leavingRecently } from "./leave-watch.js";
import { badParams, PageError } from "./page-error.js";
import { PageState } from "./page-state.js";
import type { ActionAnswer, Answer, PageAnswer, PageFailure } from "./protocol.js";
import { RefRegistry } from "./ref-registry.js";

export const PAGE_LAYER_VERSION = "0.1.0";

/** An action: its params already read by its schema (call-params.ts), typed by its contract. */
type ActionFn<A extends PageLayerActionName> = (
  state: PageState,
  params: PageCallParams<A>,
) => Answer<A> | Promise<Answer<A>>;

/**
 * The page layer's action table: one entry per action the tool contracts say runs in the page
 * (@webbrain/protocol PAGE_LAYER_ACTIONS: every tool that runs `in: "page"`, plus the helpers).
 * Typed as a record over those names, so a contract without its action here, or an action no
 * contract names, fails `tsc`.
 */
export const ACTIONS = {
  get_accessibility_tree: getAccessibilityTree,
  click_ax: clickAx,
  type_ax: typeAx,
  set_field: setField,
  hover,
  drag_drop: dragDrop,
  read_page: readPage,
  get_interactive_elements: getInteractiveElements,
  click,
  type_text: typeText,
  press_keys: pressKeys,
  scroll,
  select_text: selectText,
  extract_data: extractData,
  get_selection: getSelection,
  wait_for_element: waitForElement,
  wait_for_stable: waitForStable,
  verify_form: verifyForm,
  get_shadow_dom: getShadowDom,
  get_frames: getFrames,
  iframe_read: iframeRead,
  read_page_source: readPageSource,
  inspect_element_styles: inspectElementStyles,
  probe_completion: probeCompletion,
  verify_effect: verifyEffect,
  verify_keys: verifyKeys,
  refs_of: refsOf,
  check_value: checkValue,
  conversation_header: conversationHeader,
} as const satisfies { readonly [A in PageLayerActionName]: ActionFn<A> };

export type ActionName = keyof typeof ACTIONS;
export const ACTION_NAMES: readonly ActionName[] = Object.keys(ACTIONS) as ActionName[];

export type PageHandler = (action: string, params?: unknown) => Promise<PageAnswer>;
/**
 * The same action with params and answer as JSON text (without `runner.element`). The
 * answer is a plain string when the action does not wait (every resolve and verify step), a
 * promise of one only when it does.
 */
export type JsonPageHandler = (action: string, paramsJson: string) => string | Promise<string>;

/** What the injected script installs per realm: both doors share one state (refs, baselines). */
export interface PageLayer {
  handle: PageHandler;
  handleJson: JsonPageHandler;
}

/**
 * A JSON-only copy of an answer, keeping `runner.element` as the live node. BiDi serialises an
 * object that appears twice as a bare reference the second time, so shared sub-objects must not
 * leak out.
 */
function detach(answer: PageAnswer): PageAnswer {
  const copy = JSON.parse(answerText(answer)) as PageAnswer;
  if (answer.success && copy.success && answer.runner?.element !== undefined)
    copy.runner = { ...copy.runner, element: answer.runner.element };
  return copy;
}

/** The answer as JSON text, without its live `runner.element` (handleJson's answer, detach's copy). */
function answerText(answer: PageAnswer): string {
  if (!answer.success || answer.runner?.element === undefined) return JSON.stringify(answer);
  const { element: _element, ...runner } = answer.runner;
  return JSON.stringify({ ...answer, runner });
}

function succeeded(answer: ActionAnswer): PageAnswer {
  // Details are JSON by construction (each action builds them from strings, numbers and lists).
  return { success: true, ...answer } as PageAnswer;
}

function failed(action: string, error: unknown): PageFailure {
  if (error instanceof PageError) {
    const details = Object.keys(error.details).length > 0 ? { details: error.details } : {};
    return { success: false, error: error.message, code: error.code, ...details } as PageFailure;
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { success: false, error: `${action} failed inside the page: ${message}`, code: "internal" };
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * Makes the page layer for one document. `handleJson` is for callers that want text anyway (the
 * runner's click path): one serialization instead of detach's copy and the caller's stringify,
 * and no promise when the action does not wait. That path matters: Firefox runs the page call
 * cold on every click, and BiDi turns on async stack capture in realms it evaluates in, so each
 * await there costs a stack capture on top of the microtask.
 */
export function createPageLayer(doc: Document): PageLayer {
  return createRealmPageLayer(() => doc);
}

/**
 * The page layer of a realm, run on whichever document the realm shows at each call.
 *
 * Why not bind the document at install: a realm can outlive its first document. A frame's (or
 * a popup's) initial about:blank, replaced by a document of the same origin, keeps its Window
 * (HTML "reuse the window": no new global), so what was installed there (a BiDi preload script,
 * a content script with match_about_blank) stays and is not run again; a layer bound to the
 * about:blank document would then search an empty, unloaded document. On a new document the
 * layer starts fresh state but keeps its registry, so refs stay unique and the old document's
 * refs answer stale.
 */
export function createRealmPageLayer(currentDocument: () => Document): PageLayer {
  const registry = new RefRegistry();
  let state = new PageState(registry, currentDocument());
  const stateNow = (): PageState => {
    const doc = currentDocument();
    if (doc !== state.doc) state = new PageState(registry, doc);
    return state;
  };
  const run = (action: string, params: unknown): PageAnswer | Promise<PageAnswer> => {
    try {
      const current = stateNow();
      if (!Object.hasOwn(ACTIONS, action)) {
        throw new PageError(
          "unknown_action",
          `unknown page action ${JSON.stringify(action)}; known actions: ${ACTION_NAMES.join(", ")}`,
        );
      }
      const name = action as ActionName;
      const read = readCallParams(name, CALL_SCHEMAS[name], params) as { ref_floor?: number };
      if (read.ref_floor !== undefined) registry.raiseFloor(Math.floor(read.ref_floor));
      // The params fit the schema their type is derived from: each action gets its own.
      const fn = ACTIONS[name] as ActionFn<typeof name>;
      const result = fn(current, read as PageCallParams<typeof name>);
      if (isPromise(result)) return result.then(succeeded, (error: unknown) => failed(action, error));
      // Asked to unload just now: what this answer read is a page about to go (see leave-watch.ts).
      if (leavingRecently()) result.runner = { ...result.runner, leaving: true };
      return succeeded(result);
    } catch (error) {
      return failed(action, error);
    }
  };
  return {
    handle: async (action, params) => detach(await run(action, params)),
    handleJson: (action, paramsJson) => {
      let params: unknown;
      try {
        params = JSON.parse(paramsJson);
      } catch {
        const error = badParams(action, "params are not valid JSON text");
        return JSON.stringify({ success: false, error: error.message, code: error.code });
      }
      const result = run(action, params);
      return isPromise(result) ? result.then(answerText) : answerText(result);
    },
  };
}

/** Makes a handler bound to one document (the object form of the page layer's one entry). */
export function createHandler(doc: Document): PageHandler {
  return createPageLayer(doc).handle;
}
