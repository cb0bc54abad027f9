/**
 * Vitest setup file (vitest.config.ts `setupFiles`): fails a test file that leaves its worker
 * process changed (process-leaks.ts), naming what it left, before the next file runs there.
 * Registered first, so its afterAll runs after the file's own (vitest runs after-hooks as a stack).
 */
import { afterAll, vi } from "vitest";
import { leaksBetween, type ProcessState, processState } from "./process-leaks.js";

// Taken as this file is evaluated, before the test file is imported: a change the test file makes
// at its top level (an env variable set for the whole file) is one of its own, too.
const before: ProcessState = processState(vi.isFakeTimers());

afterAll(() => {
  const leaks = leaksBetween(before, processState(vi.isFakeTimers()));
  if (leaks.length > 0) {
    throw new Error(
      `This test file left its worker process changed, and the next file in the worker would start so: ${leaks.join("; ")}. Put it back in an after hook (vi.stubEnv with vi.unstubAllEnvs, vi.useRealTimers, close what the file started).`,
    );
  }
});
