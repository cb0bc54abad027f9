/**
 * A person takes over: `webbrain run --allow-pause` offers pause_for_user; the real bin (real
 * headless Firefox, a scripted model over HTTP) prints the model's message on stderr, waits for
 * a line on its piped stdin, and resumes with what the person typed. Without a person at hand
 * the tool is not offered at all.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import {
  type FixtureServer,
  lastToolResultText,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
  toolNames,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { BIN, runCli, runMain } from "./run-cli.js";

// One Firefox for the file, reached through --connect: each CLI start pays for tsx, not for a
// launch too (launching itself is tested in run-command, cli-process and security-orphans).
const firefox = useCliFirefox();

/** Each test starts the CLI and Firefox: a minute or two on a loaded two-core machine. */
const PROCESS_TEST_TIMEOUT_MS = 240_000;
/** How long the test watches a paused run for a model call it must not make. */
const PAUSED_WATCH_MS = 1_500;
const MESSAGE = "Solve the captcha / log in, then press Enter.";

let server: FixtureServer;
let llm: ScriptedLlm | undefined;
let child: ChildProcessWithoutNullStreams | undefined;

beforeAll(async () => {
  server = await startFixtureServer();
});

afterEach(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  child = undefined;
  await llm?.close();
  llm = undefined;
});

afterAll(async () => {
  await server?.close();
});

function runArgs(baseUrl: string, extra: string[]): string[] {
  const url = server.url("/runner/account-login.html");
  return [
    "run",
    "sign in",
    "--url",
    url,
    "--base-url",
    baseUrl,
    "--model",
    "scripted-1",
    "--json",
    ...firefox.connectArgs(),
    ...extra,
  ];
}

/** Resolves once `text` appears in what `read()` returns. */
function until(read: () => string, text: string, stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (read().includes(text)) {
        stream.off("data", check);
        resolve();
      }
    };
    stream.on("data", check);
    stream.once("end", () => reject(new Error(`the stream ended without "${text}"; got: ${read()}`)));
    check();
  });
}

describe("pause_for_user", () => {
  it(
    "prints the model's message, waits for Enter on stdin, then resumes with what the person typed",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "pause_for_user", arguments: { message: MESSAGE } }] },
          (req) => {
            expect(lastToolResultText(req)).toContain('They said: "logged in as alice"');
            return {
              toolCalls: [{ name: "done", arguments: { summary: "Signed in with the person's help." } }],
            };
          },
        ],
      });
      const running = spawn(process.execPath, [BIN, ...runArgs(llm.baseUrl, ["--allow-pause"])], {
        stdio: ["pipe", "pipe", "pipe"],
      });
      child = running;
      let stdout = "";
      let stderr = "";
      running.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      running.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      const exited = new Promise<number | null>((resolve) => running.on("close", resolve));

      await until(() => stderr, "Press Enter here when done.", running.stderr);
      expect(stderr).toContain(MESSAGE);
      expect(toolNames(llm.requests[0]!)).toContain("pause_for_user");
      // Paused: no further model call, no answer, the process still there.
      await new Promise((resolve) => setTimeout(resolve, PAUSED_WATCH_MS));
      expect(llm.requests).toHaveLength(1);
      expect(running.exitCode).toBe(null);
      expect(stdout).toBe("");

      running.stdin.write("logged in as alice\n");
      const code = await exited;
      expect(code, stderr).toBe(0);
      expect(stderr).toContain("webbrain: resuming the run.");
      expect(llm.requests).toHaveLength(2);
      expect(JSON.parse(stdout)).toMatchObject({
        status: "done",
        summary: "Signed in with the person's help.",
      });
      running.stdin.end();
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "answers that nobody is there when stdin closes during the pause, and the run goes on",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "pause_for_user", arguments: { message: MESSAGE } }] },
          (req) => {
            expect(lastToolResultText(req)).toContain("Nobody answered");
            return {
              toolCalls: [{ name: "done", arguments: { summary: "Could not sign in: nobody was there." } }],
            };
          },
        ],
      });
      // runCli ends stdin at once: the person's input is closed before the pause starts.
      const run = await runCli(runArgs(llm.baseUrl, ["--allow-pause"]));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(MESSAGE);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: "done" });
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "is not offered without a person at hand (no --allow-pause, no terminal), and refused if called",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "pause_for_user", arguments: { message: MESSAGE } }] },
          (req) => {
            expect(lastToolResultText(req)).toContain("pause_for_user is refused: nobody is at hand");
            return { toolCalls: [{ name: "done", arguments: { summary: "Went on alone." } }] };
          },
        ],
      });
      const run = await runCli(runArgs(llm.baseUrl, []));
      expect(run.code, run.stderr).toBe(0);
      expect(toolNames(llm.requests[0]!)).not.toContain("pause_for_user");
      expect(run.stderr).not.toContain(MESSAGE);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it("refuses --allow-pause with --tasks (one person, many runs)", async () => {
    const run = await runMain(["run", "--tasks", "tasks.jsonl", "--allow-pause"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--allow-pause needs one task/);
  });
});
