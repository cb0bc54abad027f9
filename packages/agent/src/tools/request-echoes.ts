/**
 * What a model does not need to read again: the parts of an action's result that repeat the
 * call it just made. A result is sent to the model on every later call of the run (and over MCP
 * the client pays for it likewise), so `{"target":{"ref_id":3,"role":"textbox","name":"Email"},
 * "verified":true,"value":"ada@example.org"}` for `type_ax {ref_id:3, value:"ada@example.org"}`
 * says one bit, `verified`, in 30 tokens.
 *
 * Invariants: only the model's text loses these fields; `details` stays whole for code (guards,
 * traces, workflows, `webbrain exec`). A field is dropped only when it says nothing the call did
 * not: the target when it is the element the call named (a retargeted or different element is
 * kept), the value when the field was verified to hold exactly what was asked, or holds a secret
 * shown masked (the mask says nothing), `trusted` when the input was trusted (the normal case;
 * `trusted: false` is kept, it says the page saw synthetic events). `verified` is always kept.
 */
import type { PageResult } from "./browser-port.js";
import { toolSpec } from "./tool-catalog.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `target` is the element the call named by `ref_id` (the tree prints refs as numbers). */
function isRequestedTarget(target: unknown, args: Record<string, unknown>): boolean {
  if (!isRecord(target) || args.ref_id === undefined || target.ref_id === undefined) return false;
  return String(target.ref_id) === String(args.ref_id);
}

/** `result` without the fields that repeat `args` (see header); `result` itself is not changed. */
export function withoutRequestEchoes(
  tool: string,
  args: Record<string, unknown>,
  result: PageResult,
): PageResult {
  const out: PageResult = { ...result };
  if (isRequestedTarget(out.target, args) && out.retargeted_to === undefined) delete out.target;
  const valueArg = toolSpec(tool)?.typedArg;
  if (valueArg !== undefined && out.verified === true && typeof out.value === "string") {
    const asked = args[valueArg];
    if (out.value === asked || out.secret === true) delete out.value;
  }
  if (out.trusted === true) delete out.trusted;
  return out;
}
