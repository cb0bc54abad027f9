/**
 * @webbrain/page: the in-page layer (accessibility tree, stable refs, page actions).
 * Consumers inject the bundle from `@webbrain/page/bundle` and call
 * `globalThis.__webbrainPage.handle(action, params)`; these exports are for typing and for
 * code that runs in a page directly.
 */
export {
  ACTION_NAMES,
  type ActionName,
  createHandler,
  createPageLayer,
  type JsonPageHandler,
  PAGE_LAYER_VERSION,
  type PageHandler,
  type PageLayer,
} from "./handle.js";
export type {
  ActionAnswer,
  ActionMode,
  ElementSummary,
  JsonValue,
  PageAnswer,
  PageErrorCode,
  PlanStep,
  VerifyCall,
  ViewportPoint,
} from "./protocol.js";
