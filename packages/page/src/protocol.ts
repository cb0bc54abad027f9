/**
 * The page layer's wire protocol: what `handle(action, params)` accepts and returns (the envelope,
 * its parts and the error codes are @webbrain/protocol's page-answer.ts).
 *
 * Invariants:
 * - Every answer is one object with `success: boolean`; a success has `details` (and maybe `meta`
 *   and `runner`), a failure `error` (a sentence that says what happened and what to do), a
 *   machine-readable `code` and maybe `details`.
 * - The only non-JSON value ever answered is `runner.element` in a resolve-mode answer: a DOM
 *   element that WebDriver BiDi serialises as a node with a `sharedId`.
 */

import type { PageDetails, PageLayerActionName, PageMeta, PageRunnerData } from "@webbrain/protocol";

export type {
  ActionMode,
  JsonValue,
  PageAnswer,
  PageErrorCode,
  PageFailure,
  PageMeta,
  PageRunnerData,
  PageSuccess,
  PlanStep,
  VerifyCall,
  ViewportPoint,
} from "@webbrain/protocol";

/**
 * What an action answers `handle`: its details (what its contract's `details` declares), and
 * where it has them, `meta` for code and `runner` data for the calling port. `handle` adds
 * `success: true` (a PageAnswer); a failure is a thrown PageError.
 */
export interface ActionAnswer<Details = Record<string, unknown>> {
  details: Details;
  meta?: PageMeta;
  runner?: PageRunnerData;
}

/** What action `A` answers: its contract's details (tsc holds each action to it). */
export type Answer<A extends PageLayerActionName> = ActionAnswer<PageDetails<A>>;

/** Summary of an element as shown to models (same words as the tree line). */
export interface ElementSummary {
  ref_id: number;
  role: string;
  name: string;
}

/** The wait actions' bounds: one definition, shared with the ports' wait_for_stable. */
export { WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS } from "@webbrain/protocol";

/**
 * Elements `attachShadow` (and declarative shadow DOM) accepts as hosts, besides custom
 * elements (a dash in the name). No other element can have a shadow root, so walks that look
 * for roots ask only these (the page layer's tree walk, the runner's closed-root probe).
 */
export const SHADOW_HOST_TAG_NAMES: readonly string[] = [
  "article",
  "aside",
  "blockquote",
  "body",
  "div",
  "footer",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "main",
  "nav",
  "p",
  "section",
  "span",
];
