/**
 * The page wire envelope: what the page layer's `handle(action, params)` answers a port, and the
 * one result shape ports hand the agent (`PageResult`).
 *
 * A page answer keeps apart who each part is for:
 * - `details`: the action's result as its contract declares it (the tool's `details` schema):
 *   what the model reads and what code reads;
 * - `meta`: bookkeeping for code that the model never reads (the tree's counts and timing, the
 *   name of every ref printed, the last ref issued, the tree as nodes);
 * - `runner`: what only the port that called uses, never passed on (the resolved element, its
 *   point, the plan of trusted input and the call that verifies it, a followed link, a page that
 *   is being left).
 * A failure says what happened and what to do next (`error`), a typed `code`, and may carry
 * `details` the model needs to recover (an ambiguous click's candidates, a stale ref's suggestions).
 *
 * `pageResultOf` turns an answer into the `PageResult` a port returns: `success`, `error` and
 * `code`, then the details' fields beside them (one JSON object per result, DESIGN.md), then
 * `meta`. The runner part stops at the port; the agent shows the model everything but `meta`.
 * Isomorphic and typebox-free: the page layer imports the types and the codes.
 */
import type { TreeNode } from "./tree-nodes.js";

/** JSON value as stored, sent to the model, or answered by a page action. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Why a page action failed, as the page layer says it (the `code` of a failed answer). */
export const PAGE_ERROR_CODES = [
  "bad_params",
  "unknown_action",
  "stale_ref",
  "not_found",
  "not_visible",
  "ambiguous",
  "occluded",
  "disabled",
  "not_editable",
  "toolbar_target",
  "cross_origin",
  "timeout",
  "unverified",
  "cancelled",
  "internal",
] as const;
export type PageErrorCode = (typeof PAGE_ERROR_CODES)[number];

/** Failures a port reports itself, beside the page layer's (the add-on's own page realm, uploads). */
export type PortErrorCode = "csp_blocked" | "not_offered" | "no_file" | "no_download";

export type ActionMode = "dispatch" | "resolve";

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
  params: JsonObject;
}

/** Where a followed link goes: this document's tab navigates, or a new tab opens. */
export type FollowedLink = "document" | "tab";

/** The part of an answer for the port that called (see the header): never passed on. */
export type PageRunnerData = {
  /**
   * The element a resolve answer acts on: a DOM element, which WebDriver BiDi serialises as a
   * node with a `sharedId` (the only non-JSON value an answer holds).
   */
  element?: unknown;
  point?: ViewportPoint;
  plan?: PlanStep[];
  verify?: VerifyCall;
  /** The click followed a link whose navigation (or download) starts after the answer. */
  follows_link?: FollowedLink;
  /** The page was asked to unload just before it answered: what it read is a page about to go. */
  leaving?: true;
};

/** The part of an answer for code and never for the model (see the header). */
export type PageMeta = {
  /** Lines and characters of the printed tree, and of the whole tree before the budget cut it. */
  lines?: number;
  chars?: number;
  full_chars?: number;
  /** How many refs the printed tree shows, and each one's accessible name. */
  refs?: number;
  ref_names?: Record<string, string>;
  elements_visited?: number;
  /** The highest ref this document has issued (the port's ref floor for the next document). */
  last_ref?: number;
  build_ms?: number;
  /** The tree as data, when the call asked for it (TREE_NODES_PARAM). */
  nodes?: TreeNode[];
};

export type PageSuccess<Details = JsonObject> = {
  success: true;
  details: Details;
  meta?: PageMeta;
  runner?: PageRunnerData;
};

export type PageFailure = {
  success: false;
  error: string;
  code: PageErrorCode;
  details?: JsonObject;
};

/** What the page layer answers for one action. */
export type PageAnswer<Details = JsonObject> = PageSuccess<Details> | PageFailure;

/**
 * A result as the agent reads it from a port (page actions, navigation, downloads...): `success`,
 * on failure `error` and maybe `code`, the details' fields, and `meta` for code only.
 */
export type PageResult = {
  success: boolean;
  error?: string;
  code?: PageErrorCode | PortErrorCode;
  meta?: PageMeta;
  [field: string]: JsonValue | undefined;
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The PageResult of a page answer (the header says the order of its fields). `answer` is what
 * crossed a realm, so it is read by shape: anything but an object with `success` is a failure.
 */
export function pageResultOf(answer: unknown): PageResult {
  if (!isObject(answer) || typeof answer.success !== "boolean") {
    return {
      success: false,
      error: `The page script answered ${JSON.stringify(answer) ?? String(answer)} instead of a result object.`,
    };
  }
  const details = isObject(answer.details) ? (answer.details as JsonObject) : {};
  if (!answer.success) {
    const error =
      typeof answer.error === "string" ? answer.error : "The page action failed without saying why.";
    const code = typeof answer.code === "string" ? { code: answer.code as PageErrorCode } : {};
    return { success: false, error, ...code, ...details };
  }
  const meta = isObject(answer.meta) ? { meta: answer.meta as PageMeta } : {};
  return { success: true, ...details, ...meta };
}
