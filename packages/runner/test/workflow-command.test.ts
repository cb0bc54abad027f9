/**
 * Traces and saved workflows end to end, with the real bin and real headless Firefox:
 * `webbrain run --trace` records a scripted model filling the order form (version 1),
 * `webbrain trace show` prints its timeline, `webbrain workflow save` turns it into a workflow
 * with a named parameter, and `webbrain workflow run` replays it without a model on version 2
 * of the page (every ref differs: new elements, another order, a second "Save" and "Email" in
 * another form) and submits the same data, then stops with a clear message on version 3, where
 * the "Email" field is gone. `--handover` lets a scripted model finish it there; its steps are
 * saved as version 2 (version 1 kept in `previous`), which replays on version 3 with no model
 * request, `workflow diff` names the changed steps, and on version 2 of the page the step the
 * repair wrote fails again and is reported, the file left as it was.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  adaOrderCalls,
  collectJsonRoute,
  DEFAULT_FIXTURES_ROOT,
  type FixtureServer,
  lastToolResultText,
  phoneOrderFinishCalls,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
  userTexts,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runMain } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 180_000;

let server: FixtureServer;
let workDir: string;
/** The file's one Firefox: every run that needs a browser reaches it with --connect. */
const firefox = useCliFirefox();
let llm: ScriptedLlm | undefined;
const orders: Record<string, unknown>[] = [];
const subscriptions: Record<string, unknown>[] = [];

beforeAll(async () => {
  server = await startFixtureServer({
    routes: { "/api/orders": collectJsonRoute(orders), "/api/newsletter": collectJsonRoute(subscriptions) },
  });
  workDir = await mkdtemp(join(tmpdir(), "webbrain-workflow-test-"));
  // The runner's approved-workflow list (workflow-approvals.ts) lives here, not in the home folder.
  vi.stubEnv("WEBBRAIN_STATE_DIR", join(workDir, "state"));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await llm?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("traces and saved workflows", () => {
  const tracePath = () => join(workDir, "order.jsonl");
  const workflowPath = () => join(workDir, "order.workflow.json");
  /**
   * `webbrain workflow run` of the saved workflow on a fixture page, with the file's Firefox. This
   * file's commands are asked of main in this process (run-cli.ts runMain): what they did and
   * printed is checked, not the process around them (cli-process.test.ts tests the bin).
   */
  const replayOn = (page: string, ...flags: string[]) =>
    runMain([
      "workflow",
      "run",
      workflowPath(),
      "--url",
      server.url(`/workflow/${page}`),
      ...flags,
      ...firefox.connectArgs(),
    ]);

  it(
    "records a run as versioned trace lines and prints its timeline",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          {
            toolCalls: [{ name: "get_accessibility_tree", arguments: {} }],
            usage: { input: 800, output: 10 },
          },
          (req) => {
            const tree = lastToolResultText(req);
            return {
              toolCalls: [...adaOrderCalls(tree)],
              usage: { input: 1200, output: 60 },
            };
          },
          {
            // The order posts in the background: wait for the page to settle, then read it.
            toolCalls: [
              { name: "wait_for_stable", arguments: {} },
              { name: "get_accessibility_tree", arguments: {} },
            ],
            usage: { input: 1500, output: 10 },
          },
          (req) => {
            expect(lastToolResultText(req)).toContain("Order saved: Ada Lovelace");
            return { toolCalls: [{ name: "done", arguments: { summary: "Ordered 3 for Ada." } }] };
          },
        ],
      });
      const run = await runMain([
        "run",
        "order 3 for Ada Lovelace, ada@example.com",
        "--url",
        server.url("/workflow/order-v1.html"),
        "--base-url",
        llm.baseUrl,
        "--trace",
        tracePath(),
        ...firefox.connectArgs(),
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(orders).toEqual([{ name: "Ada Lovelace", email: "ada@example.com", quantity: "3" }]);

      const records = (await readFile(tracePath(), "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(records.every((r) => r.v === 2 && typeof r.at === "string")).toBe(true);
      expect(records[0]).toMatchObject({
        type: "run_start",
        task: "order 3 for Ada Lovelace, ada@example.com",
        mode: "act",
      });
      expect(records.filter((r) => r.type === "model_call")).toHaveLength(4);
      const click = records.find((r) => r.type === "tool_call" && r.name === "click_ax");
      expect(click).toMatchObject({
        ok: true,
        target: { role: "button", name: "Save", within: [{ role: "form", name: "Order" }] },
        result: { effect: { changed: true } },
      });
      expect(click.ms).toBeGreaterThanOrEqual(0);
      expect(records.at(-1)).toMatchObject({ type: "run_end", status: "done", text: "Ordered 3 for Ada." });

      const show = await runMain(["trace", "show", tracePath()]);
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout).toContain('"order 3 for Ada Lovelace, ada@example.com"');
      expect(show.stdout).toMatch(/outcome done/);
      expect(show.stdout).toMatch(/4 model calls \(\d+ in \/ \d+ out tokens\), 8 tool calls/);
      expect(show.stdout).toMatch(
        /type_ax \{"ref_id":\d+,"value":"Ada Lovelace"\} ok \(\d+ ms\) on textbox "Name" in form "Order"/,
      );
      expect(show.stdout).toMatch(/done after 4 model turns/);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it("saves the run as a workflow whose typed values are named parameters", async () => {
    const save = await runMain([
      "workflow",
      "save",
      tracePath(),
      "--param",
      "customer=Ada Lovelace",
      "-o",
      workflowPath(),
    ]);
    expect(save.code, save.stderr).toBe(0);
    const workflow = JSON.parse(await readFile(workflowPath(), "utf8"));
    expect(workflow.webbrainWorkflow).toBe(3);
    expect(workflow.params).toEqual([
      { name: "customer", default: "Ada Lovelace", field: "Name" },
      { name: "email", default: "ada@example.com", field: "Email" },
      { name: "quantity", default: "3", field: "Quantity" },
    ]);
    expect(workflow.steps.map((s: { tool: string }) => s.tool)).toEqual([
      "type_ax",
      "type_ax",
      "type_ax",
      "click_ax",
    ]);
    expect(JSON.stringify(workflow.steps)).not.toContain("ref_id");
    expect(workflow.steps[0].args).toEqual({ value: "{{customer}}" });

    const wrong = await runMain(["workflow", "save", tracePath(), "--param", "who=Nobody"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/No value typed in the run was "Nobody"/);
  });

  it(
    "replays on a redesigned page whose refs all changed and submits the same data",
    async () => {
      const replay = await replayOn("order-v2.html", "--param", "customer=Grace Hopper");
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stdout).toMatch(/Replayed 4 steps/);
      expect(orders[1]).toMatchObject({
        name: "Grace Hopper",
        email: "ada@example.com",
        quantity: "3",
        coupon: "",
      });
      expect(subscriptions).toEqual([]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "runs the workflow file the add-on's test runs too (testkit's order.workflow.json)",
    async () => {
      const shared = join(DEFAULT_FIXTURES_ROOT, "workflow", "order.workflow.json");
      const replay = await runMain([
        "workflow",
        "run",
        shared,
        "--url",
        server.url("/workflow/order-v2.html"),
        "--param",
        "customer=Katherine Johnson",
        "--json",
        // Not saved by this runner: approved explicitly (security-replay.test.ts covers asking).
        "--approve",
        ...firefox.connectArgs(),
      ]);
      expect(replay.code, replay.stderr).toBe(0);
      expect(JSON.parse(replay.stdout)).toEqual({ status: "done", steps: 4 });
      expect(orders.at(-1)).toMatchObject({
        name: "Katherine Johnson",
        email: "ada@example.com",
        quantity: "3",
      });
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "stops at the first step the page no longer matches, and says which and why",
    async () => {
      const before = orders.length;
      const replay = await replayOn("order-v3.html");
      expect(replay.code).toBe(1);
      expect(replay.stderr).toMatch(
        /the replay stopped at step 2: the page no longer matches: no textbox named "Email" on the page \(textbox elements now: "Name", "Phone"\)/,
      );
      expect(orders.length).toBe(before);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
  it(
    "hands a stopped replay over to the agent with --handover, which finishes the order",
    async () => {
      await llm?.close();
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          (req) => {
            const task = userTexts(req).join("\n");
            expect(task).toContain("Its replay stopped at step 2: the page no longer matches");
            expect(task).toContain('{"value":"ada@example.com"}');
            return { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
          },
          (req) => ({ toolCalls: phoneOrderFinishCalls(lastToolResultText(req)) }),
          {
            toolCalls: [{ name: "done", arguments: { summary: "Finished the order with a phone number." } }],
          },
        ],
      });
      const replay = await replayOn("order-v3.html", "--handover", "--base-url", llm.baseUrl);
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stderr).toMatch(/the replay stopped at step 2; handing over to the agent/);
      expect(replay.stdout).toBe("Finished the order with a phone number.\n");
      expect(orders.at(-1)).toEqual({ name: "Ada Lovelace", phone: "555-0100", quantity: "3" });
      // The agent's steps are saved in place as version 2; version 1 is kept inside it.
      expect(replay.stderr).toMatch(/saved version 2 of .*order\.workflow\.json: steps 2-/);
      const saved = JSON.parse(await readFile(workflowPath(), "utf8")) as {
        version?: number;
        repair?: { step: number };
        previous?: { version: number }[];
      };
      expect(saved.version).toBe(2);
      expect(saved.repair?.step).toBe(2);
      expect(saved.previous?.map((p) => p.version)).toEqual([1]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "replays the repaired version 2 on the changed page without asking the model anything",
    async () => {
      await llm?.close();
      // No script: any generation request would fail the run, and is counted below.
      llm = await startScriptedLlm({ dialect: "openai-chat", script: [] });
      const before = orders.length;
      const replay = await replayOn("order-v3.html", "--handover", "--base-url", llm.baseUrl);
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stderr).not.toMatch(/handing over/);
      expect(llm.requests).toHaveLength(0);
      expect(orders.length).toBe(before + 1);
      expect(orders.at(-1)).toEqual({ name: "Ada Lovelace", phone: "555-0100", quantity: "3" });
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "names the changed steps in `workflow diff` between version 1 and version 2",
    async () => {
      const diff = await runMain(["workflow", "diff", `${workflowPath()}@1`, `${workflowPath()}@2`]);
      expect(diff.code, diff.stderr).toBe(1);
      expect(diff.stdout).toMatch(/\+\+\+ .*@2 \(repaired from step 2: /);
      expect(diff.stdout).toMatch(/^- .*Email/m);
      expect(diff.stdout).toMatch(/^\+ .*Phone/m);
      // `diff FILE` alone compares its previous version with its current one.
      const alone = await runMain(["workflow", "diff", workflowPath()]);
      expect(alone.code, alone.stderr).toBe(1);
      expect(alone.stdout.split("\n").slice(2)).toEqual(diff.stdout.split("\n").slice(2));
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "reports a step the repair wrote that fails again, and leaves the file as it was",
    async () => {
      const before = await readFile(workflowPath(), "utf8");
      const ordersBefore = orders.length;
      // order-v2.html has no "Phone" field: step 2, written by the repair, fails again.
      const replay = await replayOn("order-v2.html");
      expect(replay.code).toBe(1);
      expect(replay.stderr).toMatch(
        /step 2 was written by the repair in version 2 and fails again: check the page, then record the workflow anew/,
      );
      expect(await readFile(workflowPath(), "utf8")).toBe(before);
      expect(orders.length).toBe(ordersBefore);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
