/**
 * `webbrain run --plan --confirm` on a real terminal: the bin runs under util-linux `script`,
 * which gives it a pseudo-terminal (stdin and stderr are TTYs, as in a person's shell), and the
 * test answers the questions as they appear. Real headless Firefox, a scripted model over HTTP.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import {
  callOnNamed,
  type FixtureServer,
  lastToolResultText,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 120_000;
const PLAN_QUESTION = "Approve this plan?";
const PERMISSION_QUESTION = /Allow click_ax[^\n]*\[o\]nce \/ \[a\]lways \/ \[d\]eny: /g;

let server: FixtureServer;
let llm: ScriptedLlm | undefined;
/** The run of the current test; ended in afterEach if a failed test left it running. */
let terminal: { child: ChildProcessWithoutNullStreams; exit: Promise<number | null> } | undefined;

beforeAll(async () => {
  server = await startFixtureServer();
});

afterEach(async () => {
  if (terminal && terminal.child.exitCode === null) {
    // Closing the terminal hangs up the bin (SIGHUP), which closes its Firefox and profile.
    terminal.child.kill("SIGTERM");
    await terminal.exit;
  }
  terminal = undefined;
  await llm?.close();
  llm = undefined;
});

afterAll(async () => {
  await server?.close();
});

/** The planner's answer: a submit_plan call for "confirm the order". */
function submitPlan(steps: { action: string; target?: string }[], risks: string[] = []) {
  return {
    toolCalls: [{ name: "submit_plan", arguments: { goal: "confirm the order", steps, risks } }],
  };
}

/** Quotes one argument for `sh -c` (what `script -c` runs). */
function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

interface TerminalRun {
  /** Everything the terminal showed (stdout and stderr of the bin, and the echoed answers). */
  screen(): string;
  /** Types `answer` + Enter once the screen shows `question` for the `nth` time (1-based). */
  answer(question: string | RegExp, nth: number, answer: string): Promise<void>;
  exit: Promise<number | null>;
}

function runOnTerminal(args: string[]): TerminalRun {
  const command = [process.execPath, BIN, ...args].map(shellQuote).join(" ");
  const child: ChildProcessWithoutNullStreams = spawn("script", ["-qefc", command, "/dev/null"], {
    env: { ...process.env, TERM: "dumb" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  const waiters: (() => void)[] = [];
  const onOutput = (chunk: Buffer) => {
    screen += chunk.toString("utf8");
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout.on("data", onOutput);
  child.stderr.on("data", onOutput);
  const exit = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      for (const wake of waiters.splice(0)) wake();
      resolve(code);
    });
  });
  terminal = { child, exit };
  const count = (question: string | RegExp) =>
    typeof question === "string"
      ? screen.split(question).length - 1
      : (screen.match(new RegExp(question.source, "g")) ?? []).length;
  return {
    // The terminal turns each "\n" into "\r\n".
    screen: () => screen.replaceAll("\r\n", "\n"),
    exit,
    answer: async (question, nth, answer) => {
      while (count(question) < nth) {
        if (child.exitCode !== null) {
          throw new Error(`the run ended before asking ${String(question)} (#${nth}); screen:\n${screen}`);
        }
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
      child.stdin.write(`${answer}\n`);
    },
  };
}

describe("webbrain run on a terminal", () => {
  it(
    "--plan shows the plan and waits for approval; --confirm asks before each new click, honours deny and always",
    async () => {
      const clickResults: string[] = [];
      const clickConfirm = callOnNamed("click_ax", "button", "Confirm order");
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          submitPlan(
            [{ action: "read the page" }, { action: "click", target: "Confirm order" }],
            ["places the order"],
          ),
          { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
          clickConfirm,
          (req) => {
            clickResults.push(lastToolResultText(req));
            return { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
          },
          clickConfirm,
          (req) => {
            clickResults.push(lastToolResultText(req));
            return { toolCalls: [{ name: "read_page", arguments: {} }] };
          },
          (req) => ({
            text: lastToolResultText(req).includes("Order confirmed")
              ? "The order is confirmed."
              : "Not confirmed.",
          }),
        ],
      });
      const run = runOnTerminal([
        "run",
        "confirm my order",
        "--plan",
        "--confirm",
        "--url",
        server.url("/runner/trusted-only.html"),
        "--base-url",
        llm.baseUrl,
      ]);
      await run.answer(PLAN_QUESTION, 1, "y");
      await run.answer(PERMISSION_QUESTION, 1, "d");
      await run.answer(PERMISSION_QUESTION, 2, "a");
      expect(await run.exit, run.screen()).toBe(0);

      const screen = run.screen();
      expect(screen).toContain('Plan for "confirm the order":\n');
      expect(screen).toContain("2. click (Confirm order)");
      expect(screen).toContain("Risks: places the order");
      expect(screen).toMatch(/Allow click_ax[^\n]* on http:\/\/127\.0\.0\.1:\d+\?/);
      // Denied once, allowed always: asked exactly twice for two clicks.
      expect(screen.match(PERMISSION_QUESTION)).toHaveLength(2);
      expect(clickResults[0]).toMatch(/^\[click_ax failed\].*The user denied interact/s);
      expect(clickResults[1]).toMatch(/^\[click_ax ok\]/);
      expect(screen).toContain("The order is confirmed.");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "--plan: a rejected plan ends the task before any action is taken (exit 1)",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          submitPlan([{ action: "click", target: "Confirm order" }]),
          { text: "unreachable: the plan was rejected" },
        ],
      });
      const run = runOnTerminal([
        "run",
        "confirm my order",
        "--plan",
        "--url",
        server.url("/runner/trusted-only.html"),
        "--base-url",
        llm.baseUrl,
      ]);
      await run.answer(PLAN_QUESTION, 1, "n");
      expect(await run.exit, run.screen()).toBe(1);
      expect(run.screen()).not.toContain("unreachable");
      expect(llm.requests).toHaveLength(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
