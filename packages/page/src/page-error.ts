/**
 * Typed failures of page actions. Actions throw `PageError`; `handle` turns it into a failed
 * result `{success: false, error, code, ...details}`. Messages say what happened and what to do.
 */
import type { PageErrorCode } from "./protocol.js";

export class PageError extends Error {
  readonly code: PageErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: PageErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "PageError";
    this.code = code;
    this.details = details;
  }
}

export function badParams(action: string, message: string): PageError {
  return new PageError("bad_params", `${action}: ${message}`);
}
