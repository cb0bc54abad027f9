/**
 * `webbrain run --job FILE` with a workflow job (job file version 2), the real bin and real
 * headless Firefox (the file's one Firefox, through --connect): the embedded workflow (testkit's
 * order.workflow.json, the file the add-on's tests run too) replays with no model request and
 * says "replayed"; on the changed page (the "Email" field gone) a job without handover fails
 * naming step 2; with handover a scripted model finishes it, the outcome is "repaired", version
 * 2 is written into the job file, and the next run of the same file replays it with no model.
 * A workflow this webbrain did not approve is shown and refused before Firefox starts.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
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
const firefox = useCliFirefox();
let llm: ScriptedLlm | undefined;
const orders: Record<string, unknown>[] = [];

beforeAll(async () => {
  server = await startFixtureServer({ routes: { "/api/orders": collectJsonRoute(orders) } });
  workDir = await mkdtemp(join(tmpdir(), "webbrain-workflow-job-test-"));
  vi.stubEnv("WEBBRAIN_STATE_DIR", join(workDir, "state"));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await llm?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A workflow job file as the add-on's Export writes it (agent/src/scheduler/job-file.ts). */
async function writeJob(name: string, page: string, handover: boolean): Promise<string> {
  const workflow = JSON.parse(
    await readFile(join(DEFAULT_FIXTURES_ROOT, "workflow", "order.workflow.json"), "utf8"),
  );
  const path = join(workDir, name);
  const file = {
    format: "webbrain-job",
    version: 2,
    exportedAt: "2026-12-04T08:00:00.000Z",
    job: {
      kind: "workflow",
      title: "Order for Katherine",
      mode: "act",
      url: server.url(`/workflow/${page}`),
      schedule: { type: "recurring", intervalMinutes: 60, firstRunAt: "2026-12-04T09:00:00.000Z" },
      workflow,
      params: { customer: "Katherine Johnson" },
      handover,
    },
  };
  await writeFile(path, JSON.stringify(file, null, 2));
  return path;
}

/**
 * `webbrain run --job` on the file's Firefox, asked of main in this process (run-cli.ts runMain):
 * the tests check what the replay did and printed, not the process around it.
 */
const runJob = (path: string, ...flags: string[]) =>
  runMain([
    "run",
    "--job",
    path,
    ...flags,
    ...(llm ? ["--base-url", llm.baseUrl] : []),
    ...firefox.connectArgs(),
  ]);

describe("webbrain run --job with a workflow job", () => {
  it("refuses, before Firefox starts, a workflow it has not approved and task-only flags", async () => {
    const path = await writeJob("unapproved.json", "order-v2.html", false);
    // Asked of main in this process (run-cli.ts runMain): all three are refused before any browser.
    const run = await runMain(["run", "--job", path, "--connect", "ws://127.0.0.1:9/"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("was not saved by this webbrain. Its 4 steps:");
    expect(run.stderr).toMatch(/has not been approved: .*--approve/);
    const traced = await runMain(["run", "--job", path, "--trace", join(workDir, "t.jsonl")]);
    expect(traced.code).toBe(2);
    expect(traced.stderr).toMatch(/--trace is for a task; .* is a workflow job/);
    const dev = await runMain(["run", "--job", path, "--mode", "dev"]);
    expect(dev.code).toBe(2);
    expect(dev.stderr).toMatch(/replays in Act mode, never dev/);
    expect(orders).toHaveLength(0);
  });

  it(
    "replays the embedded workflow with no model request and reports replayed",
    async () => {
      // No script: any generation request would fail the run, and is counted below.
      llm = await startScriptedLlm({ dialect: "openai-chat", script: [] });
      const path = await writeJob("order-v2.json", "order-v2.html", true);
      const run = await runJob(path, "--approve");
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('replayed: all 4 steps of "order 3 for Ada Lovelace, ada@example.com"\n');
      expect(llm.requests).toHaveLength(0);
      expect(orders.at(-1)).toMatchObject({
        name: "Katherine Johnson",
        email: "ada@example.com",
        quantity: "3",
      });
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "fails naming the step when the page changed and the job gives no handover",
    async () => {
      const before = orders.length;
      const path = await writeJob("order-v3-no-handover.json", "order-v3.html", false);
      const run = await runJob(path, "--json");
      // Approved already: the same embedded workflow ran in the test before.
      expect(run.code, run.stderr).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({
        kind: "workflow",
        status: "failed",
        outcome: "failed",
        step: 2,
        description: 'type_ax on textbox "Email" in form "Order"',
        text: expect.stringMatching(
          /^failed at step 2 \(type_ax on textbox "Email" in form "Order"\): the page no longer matches: no textbox named "Email"/,
        ),
      });
      expect(orders.length).toBe(before);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "with handover the agent finishes it: repaired from step 2, version 2 saved in the job file, then replayed",
    async () => {
      await llm?.close();
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          (req) => {
            expect(userTexts(req).join("\n")).toContain("Its replay stopped at step 2");
            return { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
          },
          (req) => ({ toolCalls: phoneOrderFinishCalls(lastToolResultText(req)) }),
          {
            toolCalls: [{ name: "done", arguments: { summary: "Finished the order with a phone number." } }],
          },
        ],
      });
      const path = await writeJob("order-v3.json", "order-v3.html", true);
      const repaired = await runJob(path, "--json");
      expect(repaired.code, repaired.stderr).toBe(0);
      expect(JSON.parse(repaired.stdout)).toMatchObject({
        kind: "workflow",
        status: "completed",
        outcome: "repaired",
        step: 2,
        description: 'type_ax on textbox "Email" in form "Order"',
        version: 2,
      });
      expect(orders.at(-1)).toEqual({ name: "Katherine Johnson", phone: "555-0100", quantity: "3" });
      const saved = JSON.parse(await readFile(path, "utf8"));
      expect(saved.job.workflow).toMatchObject({ version: 2, repair: { step: 2 } });
      expect(saved.job.workflow.previous.map((p: { version: number }) => p.version)).toEqual([1]);

      const requests = llm.requests.length;
      const again = await runJob(path);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/^replayed: all \d steps/);
      expect(llm.requests).toHaveLength(requests);
      expect(orders.at(-1)).toEqual({ name: "Katherine Johnson", phone: "555-0100", quantity: "3" });
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
