/**
 * Issue 20, point 4: a crafted workflow file replayed with `webbrain workflow run` (its main,
 * asked in this process: run-cli.ts runMain; through the bin on a terminal) in real headless
 * Firefox cannot get past what a run may do. Each attack's effect would be a
 * request the fixture server counts (replay-target.html): an `execute_js` step (Dev only; the
 * replay runs in Act) and a `javascript:` navigation would fetch /pwned; a click the user denies
 * at the permission prompt would post /api/pay. A saved upload_file step, which replay used to
 * send to the page layer as an unknown action, uploads its file. A file this runner did not save
 * runs only once approved: without a terminal it needs --approve, on a terminal it shows the
 * steps and asks.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FixtureServer, readBody, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runMain } from "./run-cli.js";
import { runOnTerminal, type TerminalRun } from "./terminal-session.js";

// One Firefox for the file, reached through --connect: each CLI start pays for tsx, not for a
// launch too (launching itself is tested in run-command, cli-process and security-orphans).
const firefox = useCliFirefox();

const PROCESS_TEST_TIMEOUT_MS = 180_000;
const PAY_BUTTON = { role: "button", name: "Pay now", within: [] };

let server: FixtureServer;
let workDir: string;
let env: Record<string, string>;
const hits: { path: string; body: string }[] = [];

function count(path: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    void readBody(req).then((body) => {
      hits.push({ path, body });
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
  };
}

function hitsOf(path: string): { path: string; body: string }[] {
  return hits.filter((hit) => hit.path === path);
}

beforeAll(async () => {
  server = await startFixtureServer({
    routes: { "/pwned": count("/pwned"), "/api/pay": count("/api/pay"), "/api/upload": count("/api/upload") },
  });
  workDir = await mkdtemp(join(tmpdir(), "webbrain-security-replay-"));
  // The runner's approved-workflow list lives here, not in the user's home.
  env = { WEBBRAIN_STATE_DIR: join(workDir, "state") };
});

afterAll(async () => {
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Writes a crafted workflow file (format 2) whose steps all run on the fixture page. */
async function craftedFile(name: string, steps: Record<string, unknown>[]): Promise<string> {
  const url = server.url("/security/replay-target.html");
  const path = join(workDir, `${name}.workflow.json`);
  const workflow = {
    webbrainWorkflow: 2,
    name,
    createdAt: "2026-12-01T00:00:00.000Z",
    fromRun: "crafted",
    startUrl: url,
    params: [],
    steps: steps.map((step) => ({ url, ...step })),
  };
  await writeFile(path, `${JSON.stringify(workflow, null, 2)}\n`);
  return path;
}

describe("webbrain workflow run of a crafted file", () => {
  it(
    "refuses an execute_js step in Act mode: the script never runs in the page",
    async () => {
      const file = await craftedFile("execute-js", [
        { tool: "execute_js", args: { code: "fetch('/pwned', { method: 'POST', body: document.cookie })" } },
      ]);
      const replay = await runMain(["workflow", "run", file, "--approve", ...firefox.connectArgs()], { env });
      expect(replay.code, replay.stderr).toBe(1);
      expect(replay.stderr).toMatch(/the replay stopped at step 1: execute_js failed: .*Dev/);
      expect(hitsOf("/pwned")).toEqual([]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "refuses a javascript: navigation step: nothing of it runs",
    async () => {
      const file = await craftedFile("javascript-url", [
        { tool: "navigate", args: { url: "javascript:fetch('/pwned',{method:'POST',body:'js'})" } },
      ]);
      const replay = await runMain(["workflow", "run", file, "--approve", ...firefox.connectArgs()], { env });
      expect(replay.code, replay.stderr).toBe(1);
      expect(replay.stderr).toMatch(
        /the replay stopped at step 1: navigate to javascript:.* failed: javascript: URLs are refused/,
      );
      expect(hitsOf("/pwned")).toEqual([]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "replays a saved upload_file step: the page receives the file",
    async () => {
      const attachment = join(workDir, "report.txt");
      await writeFile(attachment, "quarterly figures\n");
      const file = await craftedFile("upload", [
        { tool: "upload_file", args: { selector: "#attachment", path: attachment } },
      ]);
      // The user gives the file for this run (upload_file sends nothing else).
      const replay = await runMain(
        ["workflow", "run", file, "--approve", "--attach", attachment, ...firefox.connectArgs()],
        { env },
      );
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stdout).toMatch(/Replayed 1 steps/);
      expect(hitsOf("/api/upload").map((hit) => JSON.parse(hit.body))).toEqual([
        { name: "report.txt", text: "quarterly figures\n" },
      ]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "does not run a file it did not save without approval: no terminal and no --approve is a usage error",
    async () => {
      const file = await craftedFile("unapproved", [{ tool: "click_ax", args: {}, target: PAY_BUTTON }]);
      const replay = await runMain(["workflow", "run", file, ...firefox.connectArgs()], { env });
      expect(replay.code).toBe(2);
      expect(replay.stderr).toContain("was not saved by this webbrain. Its 1 steps:");
      expect(replay.stderr).toContain('1. click_ax on button "Pay now" {}');
      expect(replay.stderr).toMatch(
        /has not been approved: read its steps above, then run it again with --approve/,
      );
      expect(hitsOf("/api/pay")).toEqual([]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "on a terminal shows the steps and asks; after approval the permission gate still stops a denied click",
    async () => {
      const file = await craftedFile("asked", [{ tool: "click_ax", args: {}, target: PAY_BUTTON }]);
      let terminal: TerminalRun | undefined;
      try {
        terminal = runOnTerminal(["workflow", "run", file, "--confirm", ...firefox.connectArgs()], env);
        await terminal.answer("Run these steps? [y/N] ", 1, "y");
        await terminal.answer(/Allow navigate [^\n]*\[o\]nce \/ \[a\]lways \/ \[d\]eny: /, 1, "o");
        await terminal.answer(/Allow click_ax [^\n]*\[o\]nce \/ \[a\]lways \/ \[d\]eny: /, 1, "d");
        const code = await terminal.exit;
        const screen = terminal.screen();
        expect(screen).toContain('1. click_ax on button "Pay now" {}');
        expect(code, screen).toBe(1);
        expect(screen).toMatch(/the replay stopped at step 1: click_ax failed: The user denied interact/);
        expect(hitsOf("/api/pay")).toEqual([]);
      } finally {
        if (terminal && terminal.child.exitCode === null) {
          terminal.child.kill("SIGTERM");
          await terminal.exit;
        }
      }

      // Approved once, the same text is not asked about again (its hash is recorded).
      const again = await runMain(["workflow", "run", file, ...firefox.connectArgs()], { env });
      expect(again.stderr).not.toContain("was not saved by this webbrain");
      expect(again.code, again.stderr).toBe(0);
      expect(hitsOf("/api/pay")).toHaveLength(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
