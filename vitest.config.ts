import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * Test files that need no Firefox: `npm run test:quick` runs only these. A list, not a naming
 * rule: a new test file lands in the Firefox projects until someone adds it here, so a Firefox
 * test can never slip into the quick group unnoticed. And if one is listed, its launch fails:
 * the quick project points FIREFOX_BIN at a script that refuses, with a message that says so.
 * (The agent package is browser-free by design, so all of its tests are quick.)
 */
export const QUICK_TESTS = [
  "packages/agent/test/**/*.test.ts",
  "packages/bidi/test/ack-nudge.test.ts",
  "packages/bidi/test/batch-*.test.ts",
  "packages/bidi/test/client-pending.test.ts",
  "packages/bidi/test/client-transport.test.ts",
  "packages/extension/test/addon-build.test.ts",
  "packages/extension/test/companion-client.test.ts",
  "packages/extension/test/connection-test.test.ts",
  "packages/extension/test/messaging-routes.test.ts",
  "packages/extension/test/packaged-skills.test.ts",
  "packages/extension/test/persistence.test.ts",
  "packages/extension/test/run-journal.test.ts",
  "packages/extension/test/run-prompts.test.ts",
  "packages/extension/test/zim/*.test.ts",
  "packages/page/test/bundle-cache.test.ts",
  "packages/page/test/call-params.test.ts",
  "packages/pi-firefox-bidi/test/debug-log.test.ts",
  "packages/pi-firefox-bidi/test/settings.test.ts",
  "packages/runner/test/argv-parser.test.ts",
  "packages/runner/test/attach-socket.test.ts",
  "packages/runner/test/dead-companion-leftovers.test.ts",
  "packages/runner/test/companion-host.test.ts",
  "packages/runner/test/mcp-tool-groups.test.ts",
  "packages/runner/test/network-activity.test.ts",
  "packages/runner/test/provider-options.test.ts",
  "packages/runner/test/skill-files.test.ts",
  "packages/runner/test/supported-node.test.ts",
  "packages/runner/test/terminal-prompts.test.ts",
  "packages/testkit/test/fixture-server.test.ts",
  "packages/testkit/test/import-rules.test.ts",
  "packages/testkit/test/process-leaks.test.ts",
  "packages/testkit/test/scripted-llm.test.ts",
  "packages/testkit/test/wait-for.test.ts",
];

const ALL_TESTS = ["packages/*/test/**/*.test.ts"];
const ADDON_TESTS = ["packages/extension/test/**/*.test.ts"];

/** What a quick test gets as its Firefox: a launch that fails and says why. */
const NO_FIREFOX = fileURLToPath(new URL("./scripts/firefox-refused-in-quick-tests.sh", import.meta.url));

// The page scripts (@webbrain/page bundle.ts) are built once for the run and reused by every
// process that needs them (each `webbrain` the tests start, each page test file, the add-on's
// build) while their sources are unchanged, instead of an esbuild run in each. Set here, in the
// main process, so the workers, their children and the add-on build in globalSetup inherit it.
process.env.WEBBRAIN_PAGE_SCRIPT_CACHE ??= fileURLToPath(
  new URL("./node_modules/.cache/webbrain-page-scripts", import.meta.url),
);

// One config for the whole workspace, three projects that share three forked workers (each
// Firefox test file owns one browser, DESIGN.md "Testing"):
// - quick: no browser (the list above);
// - addon: the add-on's Firefox tests, after one build of the add-on for the run (globalSetup);
// - firefox: every other test.
/**
 * Markdown (the add-on's packaged skills) imports as its text, as the add-on's build bundles it
 * (esbuild's text loader), so a test reads the same PACKAGED_SKILLS the add-on ships.
 */
const markdownAsText = {
  name: "markdown-as-text",
  transform(code: string, id: string) {
    return id.endsWith(".md") ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
  },
};

export default defineConfig({
  plugins: [markdownAsText],
  test: {
    pool: "forks",
    // Three on a two-core machine: a Firefox test spends part of its time waiting (on Firefox, on
    // a scheduled alarm), so two workers left the CPU 79% busy and a third fills it (93%). The
    // whole suite at rest: 489 s with two, 409 s with three.
    maxWorkers: 3,
    // The workers each run their files one after another in one process, not a new process
    // per file: a fork and its imports cost about 0.6 s of a core per file, some 40 s of the
    // suite's wall time (measured: 511 s isolated, 480 s not, at rest). The price is that a file
    // could leave its worker changed for the next one; the setup file below fails the file that
    // does, naming what it left (process-leaks.ts). Each Firefox test file still owns its browser.
    isolate: false,
    setupFiles: ["packages/testkit/src/process-leaks.setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    teardownTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: "quick", include: QUICK_TESTS, env: { FIREFOX_BIN: NO_FIREFOX } },
      },
      {
        extends: true,
        test: {
          name: "addon",
          include: ADDON_TESTS,
          exclude: QUICK_TESTS,
          globalSetup: ["packages/extension/test/addon-build-setup.ts"],
        },
      },
      {
        extends: true,
        test: { name: "firefox", include: ALL_TESTS, exclude: [...QUICK_TESTS, ...ADDON_TESTS] },
      },
    ],
  },
});
