/**
 * The model-facing shape of a page answer, and the few checks every runner action shares.
 *
 * Invariant: a result leaving the runner is plain JSON with `success` set; element handles,
 * plans and resolve bookkeeping never reach the model.
 */
import type { PageResult } from "@webbrain/agent";
import { TabGoneError } from "../browser/tab-contexts.js";
import { isElementHandle, type PlainValue } from "./remote-value.js";

/** Fields of a resolve answer that are for the runner only. */
const RUNNER_ONLY_FIELDS = new Set([
  "element",
  "plan",
  "verify",
  "point",
  "mode",
  "ref_floor",
  "follows_link",
]);

export type Json = Record<string, PlainValue>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The model-facing result of a page answer: JSON, `success` always set, handles removed. */
export function toPageResult(value: PlainValue | Json): PageResult {
  if (!isRecord(value)) {
    return {
      success: false,
      error: `The page script answered ${JSON.stringify(value)} instead of a result object.`,
    };
  }
  const out: PageResult = { success: value.success === true };
  for (const [key, field] of Object.entries(value)) {
    if (key === "success" || RUNNER_ONLY_FIELDS.has(key) || isElementHandle(field)) continue;
    out[key] = field as PageResult[string];
  }
  if (!out.success && typeof out.error !== "string") out.error = "The page action failed without saying why.";
  return out;
}

export function pickDefined(
  params: Record<string, unknown>,
  keys: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (params[key] !== undefined) out[key] = params[key];
  return out;
}

/** The BiDi error code of a failed command (BidiError.code), if the error carries one. */
export function bidiCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Errors that end the action instead of becoming a result: the browser or connection is gone,
 * the tab closed, or the caller stopped (Stop: its signal fired).
 */
export function isFatal(error: unknown): boolean {
  const code = bidiCode(error);
  return code === "connection closed" || code === "aborted" || error instanceof TabGoneError;
}
