/**
 * `webbrain run --tasks FILE --parallel 4`: the CLI's main (asked in this process, run-cli.ts
 * runMain; the bin itself is tested in cli-process.test.ts), real Firefox, a scripted model over
 * real HTTP. Four sign-in tasks run at once in one Firefox, each in its own user context: every
 * one starts signed out (no task sees another's cookie) and all finish.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FixtureServer,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "./run-cli.js";
import { signInScript } from "./sign-in-script.js";

const TEST_TIMEOUT_MS = 300_000;
const TASKS = 4;

let server: FixtureServer;
let llm: ScriptedLlm;
let work: string;

beforeAll(async () => {
  server = await startFixtureServer();
  llm = await startScriptedLlm({ dialect: "openai-chat", script: signInScript(TASKS) });
  work = await mkdtemp(join(tmpdir(), "webbrain-tasks-"));
});

afterAll(async () => {
  await llm?.close();
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("webbrain run --tasks --parallel", () => {
  it(
    "runs four tasks at once in separate user contexts of one Firefox",
    async () => {
      const file = join(work, "tasks.jsonl");
      const url = server.url("/runner/account-login.html");
      const lines = Array.from({ length: TASKS }, (_, i) =>
        JSON.stringify({ task: `sign in (${i + 1})`, url }),
      );
      await writeFile(file, `# sign-in tasks\n${lines.join("\n")}\n`);
      const run = await runMain([
        "run",
        "--tasks",
        file,
        "--parallel",
        String(TASKS),
        "--base-url",
        llm.baseUrl,
        "--model",
        "scripted-1",
      ]);
      expect(run.code, run.stderr).toBe(0);
      const outcomes = run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { index: number; status: string; summary: string });
      expect(outcomes.map((o) => o.index).sort()).toEqual([1, 2, 3, 4]);
      for (const outcome of outcomes) {
        expect(outcome.status).toBe("done");
        expect(outcome.summary).toContain("was signed out");
      }
      expect(run.stderr).toMatch(/4 tasks, 4 at a time; Firefox/);
      expect(run.stderr).toMatch(/4\/4 tasks finished in [\d.]+ s/);
    },
    TEST_TIMEOUT_MS,
  );

  it("refuses a task file with a bad line before starting Firefox", async () => {
    const file = join(work, "bad.jsonl");
    await writeFile(file, '{"task": "fine"}\n{"url": "http://x"}\n');
    const run = await runMain(["run", "--tasks", file, "--base-url", llm.baseUrl, "--model", "scripted-1"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('line 2 has no "task"');
  });
});
