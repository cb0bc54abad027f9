/**
 * `webbrain run` end to end: the real bin, real headless Firefox, scripted LLM servers speaking
 * OpenAI chat completions over HTTP. The scripted model reads the tree it was sent and picks
 * refs by name, as a real model would.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  callOnNamed,
  collectJsonRoute,
  type FixtureServer,
  findRef,
  lastToolResultText,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
  toolNames,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runCli } from "./run-cli.js";

/** Each test starts the CLI (seconds each on a loaded two-core machine). */
const PROCESS_TEST_TIMEOUT_MS = 120_000;

let server: FixtureServer;
let workDir: string;
/** The file's one Firefox: every run that needs a browser reaches it with --connect. */
const firefox = useCliFirefox();
let llm: ScriptedLlm | undefined;
const saved: Record<string, unknown>[] = [];
let deleteCalls = 0;

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/api/products": collectJsonRoute(saved),
      "/api/delete-account": (_req: IncomingMessage, res: ServerResponse) => {
        deleteCalls++;
        res.writeHead(200);
        res.end();
      },
    },
  });
  workDir = await mkdtemp(join(tmpdir(), "webbrain-run-test-"));
});

afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

afterAll(async () => {
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("webbrain run", () => {
  it(
    'does spec 000\'s walkthrough: "create a product priced at 500 CNY billed every 2 months"',
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          {
            toolCalls: [{ name: "get_accessibility_tree", arguments: {} }],
            usage: { input: 900, output: 12 },
          },
          (req) => {
            const tree = lastToolResultText(req);
            return {
              toolCalls: [
                {
                  name: "type_ax",
                  arguments: { ref_id: findRef(tree, "textbox", "Name"), value: "Pro plan" },
                },
                { name: "type_ax", arguments: { ref_id: findRef(tree, "textbox", "Price"), value: "500" } },
                {
                  name: "type_ax",
                  arguments: { ref_id: findRef(tree, "combobox", "Currency"), value: "CNY" },
                },
                {
                  name: "set_field",
                  arguments: {
                    ref_id: findRef(tree, "combobox", "Billing period"),
                    value: "Custom",
                    submit: true,
                  },
                },
              ],
              usage: { input: 1500, output: 80 },
            };
          },
          {
            toolCalls: [{ name: "get_accessibility_tree", arguments: {} }],
            usage: { input: 2100, output: 12 },
          },
          (req) => {
            const tree = lastToolResultText(req);
            return {
              toolCalls: [
                { name: "type_ax", arguments: { ref_id: findRef(tree, "spinbutton", "Every"), value: "2" } },
                { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Save product") } },
              ],
              usage: { input: 2600, output: 40 },
            };
          },
          {
            // Saving posts the product, and the page says so when the answer comes: wait for the
            // page to settle before reading it, as a model should. (Reading the tree at once raced
            // the POST on a loaded machine: "Product created" was not there yet.)
            toolCalls: [
              { name: "wait_for_stable", arguments: {} },
              { name: "get_accessibility_tree", arguments: {} },
            ],
            usage: { input: 3000, output: 12 },
          },
          (req) => {
            expect(lastToolResultText(req)).toContain("Product created: Pro plan");
            return {
              toolCalls: [
                { name: "done", arguments: { summary: "Created Pro plan: 500 CNY, billed every 2 months." } },
              ],
              usage: { input: 3200, output: 30 },
            };
          },
        ],
      });
      const tracePath = join(workDir, "walkthrough.jsonl");
      const run = await runCli([
        "run",
        "create a product priced at 500 CNY billed every 2 months",
        "--url",
        server.url("/runner/product-form.html"),
        "--base-url",
        llm.baseUrl,
        "--model",
        "scripted-1",
        "--json",
        "--trace",
        tracePath,
        ...firefox.connectArgs(),
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(saved).toEqual([
        { name: "Pro plan", price: "500", currency: "CNY", period: "Custom", everyMonths: 2 },
      ]);
      const summary = JSON.parse(run.stdout);
      expect(summary).toEqual({
        status: "done",
        summary: expect.stringContaining("Created Pro plan"),
        steps: 6,
        toolCalls: 11,
        tokens: { input: 13_300, output: 186 },
      });
      // Progress went to stderr, one line per tool result.
      expect(run.stderr).toMatch(/ok {3}set_field/);
      expect(run.stderr).toMatch(/ok {3}click_ax/);
      // The model was offered the Act tools, and the trace is complete.
      expect(toolNames(llm.requests[0]!)).toEqual(
        expect.arrayContaining(["click_ax", "type_ax", "set_field", "done"]),
      );
      const trace = (await readFile(tracePath, "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(trace[0]).toMatchObject({ type: "run_start", mode: "act" });
      expect(trace.filter((r) => r.type === "model_call")).toHaveLength(6);
      expect(trace.at(-1)).toMatchObject({ type: "run_end", status: "done" });
      expect(existsSync(`${tracePath}.part`)).toBe(false);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "keeps Ask mode read-only: the injected 'Delete account' click is refused and the model is told",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
          callOnNamed("click_ax", "button", "Delete account"),
          (req) => {
            expect(lastToolResultText(req)).toMatch(/^\[click_ax failed\] .*Ask mode is read-only/);
            return { text: "Your plan is Pro, renewing on the 1st. I did not delete anything." };
          },
        ],
      });
      const run = await runCli([
        "run",
        "what plan am I on?",
        "--mode",
        "ask",
        "--url",
        server.url("/runner/delete-account.html"),
        "--base-url",
        llm.baseUrl,
        ...firefox.connectArgs(),
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe("Your plan is Pro, renewing on the 1st. I did not delete anything.\n");
      expect(llm.requests).toHaveLength(3);
      expect(toolNames(llm.requests[0]!)).not.toContain("click_ax");
      expect(deleteCalls).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "--job runs a job file exported from the add-on once: its task, its mode and its URL",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
          (req) => {
            const tree = lastToolResultText(req);
            expect(tree).toContain("Account settings");
            return { text: tree.includes("Plan: Pro") ? "You are on the Pro plan." : "No plan shown." };
          },
        ],
      });
      // The documented format (agent/src/scheduler/job-file.ts), as the sidebar's Export writes it.
      const jobPath = join(workDir, "webbrain-job-plan-check.json");
      const jobFile = {
        format: "webbrain-job",
        version: 1,
        exportedAt: "2026-12-02T08:00:00.000Z",
        job: {
          kind: "task",
          title: "Plan check",
          prompt: "What plan am I on?",
          mode: "ask",
          url: server.url("/runner/delete-account.html"),
          schedule: { type: "recurring", intervalMinutes: 1440, firstRunAt: "2026-12-03T07:00:00.000Z" },
        },
      };
      await writeFile(jobPath, JSON.stringify(jobFile, null, 2));
      const run = await runCli([
        "run",
        "--job",
        jobPath,
        "--base-url",
        llm.baseUrl,
        "--json",
        ...firefox.connectArgs(),
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        status: "answered",
        summary: "You are on the Pro plan.",
      });
      expect(JSON.stringify(llm.requests[0]!.body)).toContain("What plan am I on?");
      // Ask mode from the file: no clicking tool is offered.
      expect(toolNames(llm.requests[0]!)).not.toContain("click_ax");
      expect(deleteCalls).toBe(0);

      // A file of an unknown version is refused before anything starts (usage error, exit 2).
      await writeFile(jobPath, JSON.stringify({ ...jobFile, version: 9 }));
      const refused = await runCli(["run", "--job", jobPath, "--base-url", llm.baseUrl]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--job .*: Job file version 9 is not supported .*export the job again/);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "says in one message that no model answers, and launches no Firefox (exit 3)",
    async () => {
      const run = await runCli(["run", "anything", "--base-url", "http://127.0.0.1:1"]);
      expect(run.code).toBe(3);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(
        /^webbrain: No model answers at http:\/\/127\.0\.0\.1:1\/v1 \(llama\.cpp\)\. Start one/,
      );
      expect(run.stderr).not.toMatch(/Firefox/);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "ends with exit 3 and a clear message when Firefox is killed mid-run, leaving no process or profile",
    async () => {
      let firefox: { pid: number; profile: string } | undefined;
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          () => {
            // The run printed its browser; kill it as a crash would.
            process.kill(firefox!.pid, "SIGKILL");
            return { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
          },
          { text: "unreachable" },
        ],
      });
      const run = await runCli(
        ["run", "read the page", "--url", server.url("/runner/trusted-only.html"), "--base-url", llm.baseUrl],
        {
          onStderr: (text) => {
            const match = /launched, pid (\d+), profile (\S+)\)/.exec(text);
            if (match && !firefox) firefox = { pid: Number(match[1]), profile: match[2]! };
          },
        },
      );
      expect(firefox).toBeDefined();
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(
        /webbrain: Firefox went away while the command ran: .*exited unexpectedly.*run the command again/,
      );
      expect(() => process.kill(firefox!.pid, 0)).toThrow();
      expect(existsSync(firefox!.profile)).toBe(false);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
