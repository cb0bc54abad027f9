import { defineConfig } from "vitest/config";

// One config for the whole workspace. Tests that launch Firefox are heavy on a
// two-core machine, so files run in at most two forked workers; each Firefox
// test file owns one browser (DESIGN.md "Testing").
export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 90_000,
    teardownTimeout: 30_000,
  },
});
