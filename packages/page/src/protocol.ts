/**
 * The page layer's wire protocol: what `handle(action, params)` accepts and returns.
 *
 * Invariants:
 * - Every result is one JSON-serialisable object with `success: boolean`; a failure also has
 *   `error` (a sentence that says what happened and what to do) and a machine-readable `code`.
 * - The only non-JSON value ever returned is `element` in a resolve-mode result: a DOM element
 *   that WebDriver BiDi serialises as a node with a `sharedId`.
 */

export type ActionMode = "dispatch" | "resolve";

export type ErrorCode =
  | "bad_params"
  | "unknown_action"
  | "stale_ref"
  | "not_found"
  | "not_visible"
  | "ambiguous"
  | "occluded"
  | "disabled"
  | "not_editable"
  | "toolbar_target"
  | "cross_origin"
  | "timeout"
  | "unverified"
  | "cancelled"
  | "internal";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A result as it leaves `handle`. Extra fields depend on the action. */
export interface PageResult {
  success: boolean;
  error?: string;
  code?: ErrorCode;
  [key: string]: unknown;
}

export interface ViewportPoint {
  x: number;
  y: number;
}

/**
 * One step of a resolve plan, executed by the caller with trusted input, in order.
 * Coordinates are CSS pixels in the top-level viewport.
 */
export type PlanStep =
  | { kind: "click"; x: number; y: number; count?: number }
  | { kind: "move"; x: number; y: number }
  | { kind: "drag"; from: ViewportPoint; to: ViewportPoint }
  | { kind: "keys"; keys: string[] }
  | { kind: "text"; text: string }
  | { kind: "pause"; ms: number };

/** The follow-up call that checks what trusted input did, run after the plan. */
export interface VerifyCall {
  action: string;
  params: Record<string, JsonValue>;
}

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
