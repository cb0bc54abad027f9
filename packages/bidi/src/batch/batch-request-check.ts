/**
 * Call-level checks of a batch request: what must be refused before any frame
 * is sent (or a browser launched). Throws BatchInputError with a message that
 * says what to change.
 */
import { MAX_FRAMES_PER_BATCH, MAX_TIMEOUT_MS, MAX_WAIT_METHODS } from "./budgets.js";
import { BatchInputError } from "./errors.js";
import type { BatchFrameInput, WaitRequest } from "./types.js";

export interface BatchRequestShape {
  frames: readonly BatchFrameInput[];
  wait?: WaitRequest;
  frameTimeoutMs?: number;
}

/** Throws BatchInputError for a call that must be refused before anything is sent (or launched). */
export function checkBatchRequest(request: BatchRequestShape): void {
  const count = request.frames.length;
  if (count === 0) throw new BatchInputError("A batch needs at least one frame: {method, params}.");
  if (count > MAX_FRAMES_PER_BATCH) {
    throw new BatchInputError(
      `A batch holds at most ${MAX_FRAMES_PER_BATCH} frames; this one has ${count}. Split it into several calls (references only reach frames of the same call).`,
    );
  }
  checkTimeout(request.frameTimeoutMs, "timeoutMs");
  if (request.wait) {
    const { methods, context, timeoutMs } = request.wait;
    if (methods.length === 0 || methods.length > MAX_WAIT_METHODS) {
      throw new BatchInputError(
        `wait lists ${methods.length} event methods; give between 1 and ${MAX_WAIT_METHODS}.`,
      );
    }
    if (methods.some((method) => typeof method !== "string" || method.length === 0)) {
      throw new BatchInputError('wait takes event method names such as "browsingContext.load".');
    }
    if (context !== undefined && (typeof context !== "string" || context.length === 0)) {
      throw new BatchInputError("waitContext must be a browsing context id (a non-empty string).");
    }
    checkTimeout(timeoutMs, "waitTimeoutMs");
  }
}

function checkTimeout(value: number | undefined, name: string): void {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    throw new BatchInputError(
      `${name} must be a number of milliseconds between 1 and ${MAX_TIMEOUT_MS}; got ${String(value)}.`,
    );
  }
}
