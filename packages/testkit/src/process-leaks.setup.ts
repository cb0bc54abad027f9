/**
 * Vitest setup file (vitest.config.ts `setupFiles`): fails a test file that leaves its worker
 * process changed (process-leaks.ts), naming what it left, before the next file runs there.
 * Registered first, so its afterAll runs after the file's own (vitest runs after-hooks as a stack).
 */
import { afterAll, beforeAll, vi } from "vitest";
import { leaksBetween, type ProcessState, processState } from "./process-leaks.js";

let before: ProcessState | undefined;

beforeAll(() => {
  before = processState(vi.isFakeTimers());
});

afterAll(() => {
  if (!before) return;
  const leaks = leaksBetween(before, processState(vi.isFakeTimers()));
  if (leaks.length > 0) {
    throw new Error(
      `This test file left its worker process changed, and the next file in the worker would start so: ${leaks.join("; ")}. Put it back in an after hook (vi.stubEnv with vi.unstubAllEnvs, vi.useRealTimers, close what the file started).`,
    );
  }
});
