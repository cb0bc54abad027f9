/**
 * `handle(action, params)`: the page layer's one entry. JSON in, one JSON object out.
 *
 * Invariants:
 * - Never throws: failures become `{success: false, error, code}`.
 * - `ref_floor` (any action) raises the ref counter so refs stay unique across the documents of
 *   one tab: callers pass the highest ref they have seen.
 * - The state (registry, pending verifications) belongs to the realm that installed this script.
 */
import { clickAx, dragDrop, getAccessibilityTree, hover, verifyEffect } from "./actions/ax-actions.js";
import { click } from "./actions/click-action.js";
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
  scroll,
} from "./actions/reading-actions.js";
import { setField } from "./actions/set-field-action.js";
import { checkValue, typeAx } from "./actions/text-actions.js";
import { waitForElement, waitForStable } from "./actions/wait-actions.js";
import { badParams, PageError } from "./page-error.js";
import { PageState } from "./page-state.js";
import { Params } from "./params.js";
import type { PageResult } from "./protocol.js";
import { RefRegistry } from "./ref-registry.js";

export const PAGE_LAYER_VERSION = "0.1.0";

type ActionFn = (state: PageState, p: Params) => PageResult | Promise<PageResult>;

export const ACTIONS: Readonly<Record<string, ActionFn>> = {
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
};

export type ActionName = keyof typeof ACTIONS;
export const ACTION_NAMES: readonly string[] = Object.keys(ACTIONS);

export type PageHandler = (action: string, params?: unknown) => Promise<PageResult>;
/** The same action with params and result as JSON text (the result without `element`). */
export type JsonPageHandler = (action: string, paramsJson: string) => Promise<string>;

/** What the injected script installs per realm: both doors share one state (refs, baselines). */
export interface PageLayer {
  handle: PageHandler;
  handleJson: JsonPageHandler;
}

/**
 * A JSON-only copy of a result, keeping `element` as the live node. BiDi serialises an object
 * that appears twice as a bare reference the second time, so shared sub-objects must not leak out.
 */
function detach(result: PageResult): PageResult {
  const { element, ...rest } = result;
  const copy = JSON.parse(JSON.stringify(rest)) as PageResult;
  if (element !== undefined) copy.element = element;
  return copy;
}

/**
 * Makes the page layer for one document. `handleJson` is for callers that want text anyway (the
 * runner's click path): one serialization instead of detach's copy and the caller's own
 * stringify, which is measurable on a path Firefox runs cold on every call.
 */
export function createPageLayer(doc: Document): PageLayer {
  const state = new PageState(new RefRegistry(), doc);
  const run = async (action: string, params: unknown): Promise<PageResult> => {
    try {
      const fn = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
      if (!fn) {
        throw new PageError(
          "unknown_action",
          `unknown page action ${JSON.stringify(action)}; known actions: ${ACTION_NAMES.join(", ")}`,
        );
      }
      const p = new Params(action, params);
      const floor = p.optionalNumber("ref_floor");
      if (floor !== undefined) state.registry.raiseFloor(Math.floor(floor));
      return await fn(state, p);
    } catch (error) {
      if (error instanceof PageError)
        return { success: false, error: error.message, code: error.code, ...error.details };
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return { success: false, error: `${action} failed inside the page: ${message}`, code: "internal" };
    }
  };
  return {
    handle: async (action, params) => detach(await run(action, params)),
    handleJson: async (action, paramsJson) => {
      let params: unknown;
      try {
        params = JSON.parse(paramsJson);
      } catch {
        const error = badParams(action, "params are not valid JSON text");
        return JSON.stringify({ success: false, error: error.message, code: error.code });
      }
      const { element: _element, ...rest } = await run(action, params);
      return JSON.stringify(rest);
    },
  };
}

/** Makes a handler bound to one document (the object form of the page layer's one entry). */
export function createHandler(doc: Document): PageHandler {
  return createPageLayer(doc).handle;
}
