/**
 * The model-facing shape of a page answer, and the few checks every runner action shares.
 *
 * Invariant: a result leaving the runner is plain JSON with `success` set; the answer's runner
 * part (element handles, plans, resolve bookkeeping) never reaches the model.
 */
import { type PageResult, pageResultOf } from "@webbrain/protocol";
import { TabGoneError } from "../browser/tab-contexts.js";
import type { PlainValue } from "./remote-value.js";

export type Json = Record<string, PlainValue>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The result of a page answer (@webbrain/protocol page-answer.ts): `success`, `error` and `code`,
 * the details, `meta`; the runner part is left out.
 */
export function toPageResult(value: PlainValue | Json): PageResult {
  return pageResultOf(value);
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
