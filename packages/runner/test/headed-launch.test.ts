/**
 * `--headed` reaches Firefox's command line: the real bin launches a wrapper (`--firefox`) that
 * writes down its arguments and then runs the real Firefox. Without `--headed` the arguments
 * carry `--headless` and the command works; with it they do not, on `run`, `mcp` and `login`.
 *
 * This machine (and CI) has no display, so a headed Firefox cannot start here: the test
 * asserts what a user without a display gets (exit 3 and the launcher's hint to set DISPLAY or
 * use xvfb-run), not a headed window. That a headed window works is not tested here.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveFirefoxExecutable } from "@webbrain/bidi";
import {
  type FixtureServer,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

/** Each test starts the CLI and Firefox: a minute or two on a loaded two-core machine. */
const PROCESS_TEST_TIMEOUT_MS = 240_000;
/** No display at all, whatever the machine running the tests has. */
const NO_DISPLAY = { DISPLAY: "", WAYLAND_DISPLAY: "" };

let server: FixtureServer;
let llm: ScriptedLlm;
let workDir: string;
let wrapper: string;
let argsFile: string;

beforeAll(async () => {
  server = await startFixtureServer();
  // The model is only probed: Firefox fails before any generation request.
  llm = await startScriptedLlm({ dialect: "openai-chat", script: [] });
  workDir = await mkdtemp(join(tmpdir(), "webbrain-headed-"));
  argsFile = join(workDir, "firefox-args.txt");
  wrapper = join(workDir, "firefox");
  const firefox = resolveFirefoxExecutable();
  await writeFile(
    wrapper,
    `#!/bin/sh\nprintf '%s\\n' "$@" > ${JSON.stringify(argsFile)}\nexec ${JSON.stringify(firefox)} "$@"\n`,
  );
  await chmod(wrapper, 0o755);
});

afterAll(async () => {
  await llm?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function launchedArgs(): Promise<string[]> {
  const args = (await readFile(argsFile, "utf8")).trim().split("\n");
  await rm(argsFile, { force: true });
  return args;
}

describe("--headed", () => {
  it(
    "is off by default: Firefox gets --headless and the command works",
    async () => {
      const run = await runCli(["snapshot", server.url("/runner/account-login.html"), "--firefox", wrapper], {
        env: NO_DISPLAY,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(await launchedArgs()).toContain("--headless");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  // Arguments are built when the test runs: run needs the scripted model's URL.
  const headed: [string, () => string[]][] = [
    ["run", () => ["run", "sign in", "--headed", "--base-url", llm.baseUrl, "--model", "scripted-1"]],
    ["mcp", () => ["mcp", "--headed"]],
    // login is always headed.
    ["login", () => ["login", "about:blank", "--save-state", join(workDir, "state.json")]],
  ];
  for (const [command, commandArgs] of headed) {
    it(
      `${command}: Firefox starts without --headless; with no display the user is told what to do`,
      async () => {
        const run = await runCli([...commandArgs(), "--firefox", wrapper], { env: NO_DISPLAY });
        expect(run.code, run.stderr).toBe(3);
        expect(run.stderr).toMatch(/Headed mode needs a display: set DISPLAY \(or run under xvfb-run\)/);
        const launched = await launchedArgs();
        expect(launched).not.toContain("--headless");
        expect(launched).toContain("--remote-debugging-port");
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  }
});
