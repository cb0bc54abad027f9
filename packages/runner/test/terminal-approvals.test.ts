/**
 * `webbrain run --plan --confirm` on a real terminal: the bin runs under util-linux `script`,
 * which gives it a pseudo-terminal (stdin and stderr are TTYs, as in a person's shell), and the
 * test answers the questions as they appear. Real headless Firefox, a scripted model over HTTP.
 */
import {
  callOnNamed,
  type FixtureServer,
  lastToolResultText,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runOnTerminal, type TerminalRun } from "./terminal-session.js";

// One Firefox for the file, reached through --connect (launching is tested elsewhere).
const firefox = useCliFirefox();

const PROCESS_TEST_TIMEOUT_MS = 120_000;
const PLAN_QUESTION = "Approve this plan?";
const PERMISSION_QUESTION = /Allow click_ax[^\n]*\[o\]nce \/ \[a\]lways \/ \[d\]eny: /g;

let server: FixtureServer;
let llm: ScriptedLlm | undefined;
/** The run of the current test; ended in afterEach if a failed test left it running. */
let terminal: TerminalRun | undefined;

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

/** The bin on a pseudo-terminal, on the file's Firefox; ended in afterEach if a test fails. */
function onTerminal(args: string[]): TerminalRun {
  const run = runOnTerminal([...args, ...firefox.connectArgs()]);
  terminal = run;
  return run;
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
      const run = onTerminal([
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
      const run = onTerminal([
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
