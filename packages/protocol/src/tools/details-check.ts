/**
 * Whether a result fits its tool's `details` schema, for the conformance tests that call every
 * tool on every port: the page layer's returns are held to the schema by tsc, what ports add is
 * held to it here, in real Firefox.
 */
import type { TSchema } from "typebox";
import { Value } from "typebox/value";

/** Parts of a result that are not details: the status and the bookkeeping for code (page-answer.ts). */
const NOT_DETAILS = new Set(["success", "error", "code", "meta", "warnings"]);

/**
 * Where a successful result does not fit `details` ("/path message", at most `max`); empty when
 * it fits. Fields the schema does not name are allowed (a port may say more).
 */
export function detailsMismatches(details: TSchema, result: Record<string, unknown>, max = 3): string[] {
  const fields = Object.fromEntries(Object.entries(result).filter(([key]) => !NOT_DETAILS.has(key)));
  const out: string[] = [];
  for (const error of Value.Errors(details, fields)) {
    out.push(`${error.instancePath || "/"} ${error.message}`);
    if (out.length >= max) break;
  }
  return out;
}
