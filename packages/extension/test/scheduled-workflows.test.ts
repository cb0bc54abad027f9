/**
 * Scheduled workflows in the installed add-on in real Firefox, the sidebar driven with trusted
 * input: Schedule on a saved workflow (testkit's order.workflow.json, the file the runner's tests
 * replay too) makes a workflow job of the sidebar's tab; browser.alarms fires it, it replays in a
 * tab opened inactive with no model request, and the job's last result in the sidebar says
 * "replayed". On the form whose Email field is gone, a job without handover says "failed at step
 * 2" and names the step; a job with handover lets the scripted model finish, says "repaired from
 * step 2" and saves version 2 where the add-on keeps workflows. The job's Export gives a file that
 * `webbrain run --job` runs (the runner's bin, with its own Firefox).
 *
 * Short delays: the scheduler's minimum delay is lowered through
 * `storage.local.wb_scheduler_dev_limits` (scheduling/scheduler-service.ts), as scheduled-tasks
 * does. Its own file: scheduled-tasks.test.ts has an order dependence around notifications.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  collectJsonRoute,
  DEFAULT_FIXTURES_ROOT,
  type FixtureServer,
  lastToolResultText,
  phoneOrderFinishCalls,
  runNodeScript,
  type ScriptedLlm,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  userTexts,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  click,
  count,
  downloadPrefs,
  fill,
  firefoxTabId,
  installAndOpenSettings,
  openAddonPage,
  scriptedProviderConfig,
  waitForText,
} from "./addon-harness.js";

/** The runner's bin, run by path (a package's tests import no other package's test helpers). */
const WEBBRAIN_BIN = fileURLToPath(new URL("../../runner/bin/webbrain.js", import.meta.url));

const downloads = await mkdtemp(join(tmpdir(), "webbrain-workflow-jobs-"));
let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
let llm: ScriptedLlm | undefined;
const orders: Record<string, unknown>[] = [];

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer({
    routes: {
      "/api/orders": collectJsonRoute(orders),
    },
  });
}, 180_000);

afterAll(async () => {
  await llm?.close();
  await fixtures?.close();
  await addon?.remove();
  await rm(downloads, { recursive: true, force: true });
});

const firefox = setupFirefox({ prefs: { ...ADDON_PREFS, ...downloadPrefs(downloads) } });
let settingsPage = "";
let sidebar = "";
let ownerTab = 0;
const item = "#workflow-list li:first-child";

async function bg<T>(expression: string): Promise<T> {
  return evaluate<T>(firefox.client, settingsPage, expression, { awaitPromise: true });
}

/** Schedules the listed workflow on `page` in 1.2 s (0.02 min; the lowered minimum is 1 s), with or without handover. */
async function scheduleOn(page: string, handover: boolean): Promise<void> {
  await fill(firefox.client, sidebar, `${item} input[name="start-url"]`, fixtures!.url(`/workflow/${page}`));
  await click(firefox.client, sidebar, `${item} button.schedule`);
  await fill(firefox.client, sidebar, `${item} input[name="schedule-in"]`, "0.02");
  if (handover) await click(firefox.client, sidebar, `${item} input[name="schedule-handover"]`);
  await click(firefox.client, sidebar, `${item} form.workflow-schedule button[type=submit]`);
  await waitForText(firefox.client, sidebar, "#workflow-status", 'Scheduled "order 3 for Ada Lovelace');
}

/** The text of the sidebar's newest job (the list shows live jobs, then the recent finished ones). */
const newestJob = "#scheduled-jobs li.job:last-child";

describe("scheduled workflows", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        // Only the handover test asks the model: it finishes the order on the changed form.
        (req) => {
          expect(userTexts(req).join("\n")).toContain("Its replay stopped at step 2");
          return { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
        },
        (req) => ({ toolCalls: phoneOrderFinishCalls(lastToolResultText(req)) }),
        { toolCalls: [{ name: "done", arguments: { summary: "Finished the order with a phone number." } }] },
      ],
    });
    const workflow = await readFile(join(DEFAULT_FIXTURES_ROOT, "workflow", "order.workflow.json"), "utf8");
    const settings = {
      providers: [scriptedProviderConfig(llm.baseUrl)],
      activeProviderId: "scripted",
      maxSteps: 20,
      planBeforeAct: false,
      verbose: "normal",
    };
    await bg(
      `browser.storage.local.set(${JSON.stringify({
        settings,
        // Saved here (a string entry: approved), so it runs without the import approval.
        workflows: [workflow],
        wb_scheduler_dev_limits: { minDelayMs: 1_000, minIntervalMs: 2_000, queueRetryMs: 1_000 },
      })}).then(() => true)`,
    );
    const owner = await firefox.newTab();
    const ownerUrl = fixtures!.url("/workflow/order-v1.html?owner");
    await navigate(firefox.client, owner, ownerUrl);
    ownerTab = await firefoxTabId(firefox.client, settingsPage, ownerUrl);
    sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${ownerTab}`);
    await waitForText(firefox.client, sidebar, "#tab-title", "New order");
    if (!(await evaluate<boolean>(firefox.client, sidebar, "document.getElementById('workflows').open"))) {
      await click(firefox.client, sidebar, "#workflows > summary");
    }
    await waitForText(firefox.client, sidebar, item, "order 3 for Ada Lovelace");
    await fill(firefox.client, sidebar, `${item} input[name="customer"]`, "Katherine Johnson");
  }, 120_000);

  it("refuses to schedule a workflow with a secret input or a send on a protected messaging route", async () => {
    const workflow = (steps: unknown[], params: unknown[] = []) =>
      JSON.stringify({
        webbrainWorkflow: 3,
        name: "refused",
        startUrl: fixtures!.url("/workflow/order-v2.html"),
        params,
        steps,
      });
    const schedule = (text: string) =>
      bg<{ ok: boolean; error?: string }>(
        `browser.runtime.sendMessage(${JSON.stringify({
          type: "wb_jobs_schedule_workflow",
          tabId: ownerTab,
          workflow: text,
          params: {},
          url: "",
          afterSeconds: 60,
          handover: false,
        })})`,
      );
    const secret = await schedule(
      workflow(
        [
          {
            tool: "type_ax",
            args: { value: "{{password}}" },
            url: "u",
            target: { role: "textbox", name: "Password", within: [] },
          },
        ],
        [{ name: "password", default: "", field: "Password", secret: true }],
      ),
    );
    expect(secret).toEqual({ ok: false, error: expect.stringContaining('the secret input "password"') });
    const send = await schedule(
      workflow([
        {
          tool: "click_ax",
          args: {},
          url: "https://www.douyin.com/chat/123",
          target: { role: "button", name: "Send", within: [] },
        },
      ]),
    );
    expect(send).toEqual({ ok: false, error: expect.stringMatching(/may send a message on Douyin chat/) });
    const jobs = await bg<{ value: unknown[] }>(
      `browser.runtime.sendMessage({ type: "wb_jobs_list", tabId: ${ownerTab} })`,
    );
    expect(jobs.value).toEqual([]);
  });

  it("Schedule fires the saved workflow, which replays with no model request and says replayed", async () => {
    // Run once first, answering "Allow always": a scheduled replay has nobody to ask, so it has
    // the grants given here and no others.
    await fill(
      firefox.client,
      sidebar,
      `${item} input[name="start-url"]`,
      fixtures!.url("/workflow/order-v2.html"),
    );
    await click(firefox.client, sidebar, `${item} button.run`);
    await waitFor(
      async () => {
        if ((await count(firefox.client, sidebar, `${item} .workflow-permission`)) > 0) {
          await click(firefox.client, sidebar, `${item} .workflow-permission button.always`).catch(
            () => undefined,
          );
        }
        return orders.length === 1;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: "the order of the first Run" },
    );
    await waitForText(firefox.client, sidebar, "#workflow-status", "Replayed 4 steps", 30_000);

    await scheduleOn("order-v2.html", false);
    await waitForText(firefox.client, sidebar, newestJob, "Workflow: order 3 for Ada Lovelace");
    await waitForText(
      firefox.client,
      sidebar,
      `${newestJob} .job-last`,
      "Last: replayed (no model asked)",
      60_000,
    );
    expect(orders).toHaveLength(2);
    expect(orders[1]).toMatchObject({ name: "Katherine Johnson", email: "ada@example.com", quantity: "3" });
    expect(llm!.requests).toHaveLength(0);
    // The job's replay ran in a tab it opened inactive: the user's current tab is not taken over.
    const replayTabActive = await bg<boolean>(
      `browser.runtime.sendMessage({ type: "wb_jobs_list", tabId: ${ownerTab} })
        .then((reply) => browser.tabs.get(Number(reply.value.at(-1).lastTabId)))
        .then((tab) => tab.active)`,
    );
    expect(replayTabActive).toBe(false);
  }, 180_000);

  it("Export gives a job file that webbrain run --job replays", async () => {
    await click(firefox.client, sidebar, `${newestJob} .job-export`);
    // Firefox creates the file before it writes it: wait until it holds the whole JSON.
    let path = "";
    const file = await waitFor(
      async () => {
        const name = (await readdir(downloads)).find(
          (f) => f.startsWith("webbrain-job-") && f.endsWith(".json"),
        );
        if (!name) return undefined;
        path = join(downloads, name);
        return readFile(path, "utf8")
          .then((text) => JSON.parse(text) as Record<string, unknown>)
          .catch(() => undefined);
      },
      { timeoutMs: 20_000, message: "no complete exported job file in the downloads folder" },
    );
    expect(file).toMatchObject({
      format: "webbrain-job",
      version: 2,
      job: {
        kind: "workflow",
        mode: "act",
        url: fixtures!.url("/workflow/order-v2.html"),
        params: { customer: "Katherine Johnson", email: "ada@example.com", quantity: "3" },
        handover: false,
        workflow: { name: "order 3 for Ada Lovelace, ada@example.com" },
      },
    });
    // The runner's own bin, launching its own Firefox (this one's BiDi session is the test's).
    const run = await runNodeScript(WEBBRAIN_BIN, ["run", "--job", path, "--approve"], {
      env: { WEBBRAIN_STATE_DIR: join(downloads, "state") },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('replayed: all 4 steps of "order 3 for Ada Lovelace, ada@example.com"\n');
    expect(orders.at(-1)).toMatchObject({ name: "Katherine Johnson", email: "ada@example.com" });
  }, 180_000);

  it("without handover, a replay the changed page stops says failed and names the step", async () => {
    const before = orders.length;
    await scheduleOn("order-v3.html", false);
    await waitForText(
      firefox.client,
      sidebar,
      `${newestJob} .job-last`,
      'Last: failed at step 2 (type_ax on textbox "Email" in form "Order")',
      60_000,
    );
    expect(orders).toHaveLength(before);
    expect(llm!.requests).toHaveLength(0);
  }, 120_000);

  it("with handover the agent finishes it: repaired from step 2, and version 2 is saved", async () => {
    await scheduleOn("order-v3.html", true);
    await waitForText(
      firefox.client,
      sidebar,
      `${newestJob} .job-last`,
      'Last: repaired from step 2 (type_ax on textbox "Email" in form "Order") version 2 saved',
      90_000,
    );
    expect(orders.at(-1)).toEqual({ name: "Katherine Johnson", phone: "555-0100", quantity: "3" });
    const stored = await bg<string[]>("browser.storage.local.get('workflows').then((s) => s.workflows)");
    expect(stored).toHaveLength(1);
    const saved = JSON.parse(stored[0]!) as { version?: number; previous?: { version: number }[] };
    expect(saved.version).toBe(2);
    expect(saved.previous?.map((p) => p.version)).toEqual([1]);
  }, 180_000);
});
