/**
 * Issue 20, point 6: a password the agent types is stored nowhere. A scripted model signs in on
 * a fixture page (security/login.html: a type=password field and an autocomplete=one-time-code
 * field) during `webbrain run --trace FILE` (its main, asked in this process: run-cli.ts runMain,
 * which collects all it prints; the terminal prompt goes through the bin) in real headless Firefox; the user's task
 * itself names the password, so the trace's first line held it before the page said the field
 * was secret. Then: the trace holds neither secret and is 0600; `webbrain workflow save` neither
 * prints nor stores them, and the saved workflow (0600) has secret parameters with no default;
 * `webbrain workflow run` refuses to replay without them, replays with `--param`, and on a
 * terminal asks for them without echoing what is typed.
 */
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FixtureServer,
  findRef,
  lastToolResultText,
  readJsonBody,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runMain } from "./run-cli.js";
import { runOnTerminal, type TerminalRun } from "./terminal-session.js";

// One Firefox for the file, reached through --connect: each CLI start pays for tsx, not for a
// launch too (launching itself is tested in run-command, cli-process and security-orphans).
const firefox = useCliFirefox();

const PROCESS_TEST_TIMEOUT_MS = 180_000;
const PASSWORD = "Tr0ub4dor&3-staple";
const CODE = "493817";

let server: FixtureServer;
let llm: ScriptedLlm | undefined;
let workDir: string;
let env: Record<string, string>;
const logins: Record<string, string>[] = [];

function collectLogin(req: IncomingMessage, res: ServerResponse): void {
  void readJsonBody<Record<string, string>>(req).then((body) => {
    logins.push(body);
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"ok":true}');
  });
}

beforeAll(async () => {
  server = await startFixtureServer({ routes: { "/api/login": collectLogin } });
  workDir = await mkdtemp(join(tmpdir(), "webbrain-security-secrets-"));
  env = { WEBBRAIN_STATE_DIR: join(workDir, "state") };
});

afterAll(async () => {
  await llm?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

function modeOf(info: { mode: number }): number {
  return info.mode & 0o777;
}

describe("secrets typed during a run", () => {
  const tracePath = () => join(workDir, "login.jsonl");
  const workflowPath = () => join(workDir, "login.workflow.json");

  it(
    "are in no line of the trace, which is readable by the user alone",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
          (req) => {
            const tree = lastToolResultText(req);
            return {
              toolCalls: [
                {
                  name: "type_ax",
                  arguments: { ref_id: findRef(tree, "textbox", "Email"), value: "ada@example.com" },
                },
                {
                  name: "type_ax",
                  arguments: { ref_id: findRef(tree, "textbox", "Password"), value: PASSWORD },
                },
                { name: "type_ax", arguments: { ref_id: findRef(tree, "textbox", "Code"), value: CODE } },
                { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Sign in") } },
              ],
            };
          },
          (req) => {
            // The model read back a masked value, not the password it typed.
            expect(JSON.stringify(req.body)).toContain('"secret\\":true');
            return {
              toolCalls: [
                { name: "wait_for_stable", arguments: {} },
                { name: "get_accessibility_tree", arguments: {} },
              ],
            };
          },
          (req) => {
            expect(lastToolResultText(req)).toContain("Signed in: ada@example.com");
            return { toolCalls: [{ name: "done", arguments: { summary: `Signed in with ${PASSWORD}.` } }] };
          },
        ],
      });
      const run = await runMain(
        [
          "run",
          `sign in as ada@example.com, password ${PASSWORD}, code ${CODE}`,
          "--url",
          server.url("/security/login.html"),
          "--base-url",
          llm.baseUrl,
          "--trace",
          tracePath(),
          ...firefox.connectArgs(),
        ],
        { env },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(logins).toEqual([{ email: "ada@example.com", password: PASSWORD, code: CODE }]);
      // Progress lines on stderr never show it either.
      expect(run.stderr).not.toContain(PASSWORD);
      expect(run.stderr).not.toContain(CODE);

      const trace = await readFile(tracePath(), "utf8");
      expect(trace).not.toContain(PASSWORD);
      expect(trace).not.toContain(CODE);
      expect(trace).toContain("[secret]");
      expect(modeOf(await stat(tracePath()))).toBe(0o600);
      expect((await readdir(workDir)).filter((name) => name.endsWith(".part"))).toEqual([]);
      const typed = trace
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
        .filter((r) => r.type === "tool_call" && r.name === "type_ax");
      expect(typed.map((r) => r.args.value)).toEqual(["ada@example.com", "[secret]", "[secret]"]);
      expect(typed.map((r) => r.result.secret === true)).toEqual([false, true, true]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "are neither printed nor stored by workflow save: they become parameters a replay must be given",
    async () => {
      const save = await runMain(["workflow", "save", tracePath(), "-o", workflowPath()], { env });
      expect(save.code, save.stderr).toBe(0);
      expect(`${save.stdout}${save.stderr}`).not.toContain(PASSWORD);
      expect(`${save.stdout}${save.stderr}`).not.toContain(CODE);
      expect(save.stderr).toContain("password (secret: asked at each replay)");
      const text = await readFile(workflowPath(), "utf8");
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(CODE);
      expect(modeOf(await stat(workflowPath()))).toBe(0o600);
      const workflow = JSON.parse(text);
      expect(workflow.webbrainWorkflow).toBe(3);
      expect(workflow.params).toEqual([
        { name: "email", default: "ada@example.com", field: "Email" },
        { name: "password", default: "", field: "Password", secret: true },
        { name: "code", default: "", field: "Code", secret: true },
      ]);

      const toStdout = await runMain(["workflow", "save", tracePath()], { env });
      expect(toStdout.code, toStdout.stderr).toBe(0);
      expect(toStdout.stdout).not.toContain(PASSWORD);

      const without = await runMain(["workflow", "run", workflowPath(), ...firefox.connectArgs()], { env });
      expect(without.code).toBe(2);
      expect(without.stderr).toMatch(/needs the secret parameter password, code, which is never saved/);
      expect(logins).toHaveLength(1);

      const replay = await runMain(
        [
          "workflow",
          "run",
          workflowPath(),
          "--param",
          "password=second-Secret!",
          "--param",
          "code=111222",
          ...firefox.connectArgs(),
        ],
        { env },
      );
      expect(replay.code, replay.stderr).toBe(0);
      expect(logins.at(-1)).toEqual({ email: "ada@example.com", password: "second-Secret!", code: "111222" });
      expect(replay.stderr).not.toContain("second-Secret!");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "are asked for on a terminal at replay, without echo",
    async () => {
      let terminal: TerminalRun | undefined;
      try {
        terminal = runOnTerminal(["workflow", "run", workflowPath(), ...firefox.connectArgs()], env);
        await terminal.answer('password (secret, for "Password"): ', 1, "third-Secret?");
        await terminal.answer('code (secret, for "Code"): ', 1, "333444");
        const code = await terminal.exit;
        const screen = terminal.screen();
        expect(code, screen).toBe(0);
        expect(screen).not.toContain("third-Secret?");
        expect(screen).not.toContain("333444");
        expect(logins.at(-1)).toEqual({
          email: "ada@example.com",
          password: "third-Secret?",
          code: "333444",
        });
      } finally {
        if (terminal && terminal.child.exitCode === null) {
          terminal.child.kill("SIGTERM");
          await terminal.exit;
        }
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
