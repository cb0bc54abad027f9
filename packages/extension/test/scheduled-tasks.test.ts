/**
 * Scheduled tasks in real Firefox: a scripted model calls schedule_task, browser.alarms fires,
 * the task runs in a tab opened inactive and reports in that tab's chat (marked as scheduled);
 * a scheduled run that needs a person raises a browser notification and gives up after the wait;
 * a recurring job fires twice; a job scheduled before an add-on reload still runs after it; a
 * task's Export in the sidebar saves a job file for `webbrain run --job`.
 *
 * Short delays: the product's minimum delay is a minute; tests lower the scheduler's limits
 * through `storage.local.wb_scheduler_dev_limits` (scheduling/scheduler-service.ts). Firefox
 * itself fires a temporary add-on's alarm as early as asked: the first test measures it.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alarmName } from "@webbrain/agent";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  type FixtureServer,
  type ScriptedLlm,
  type ScriptStep,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  click,
  downloadPrefs,
  firefoxTabId,
  installAndOpenSettings,
  openAddonPage,
  screenshot,
  scriptedProviderConfig,
  setViewport,
  waitForText,
} from "./addon-harness.js";

/** The sidebar size in the screenshots: the 360 px the sidebar must read well at. */
const SIDEBAR_WIDTH_PX = 360;
const SIDEBAR_HEIGHT_PX = 760;

/** The recurring test's interval: 0.05 min, above the lowered minimum of 2 s. */
const RECURRING_INTERVAL_MS = 3_000;

/** A scheduled alarm must fire within this much of its time in Firefox. */
const ALARM_SLACK_MS = 1_500;

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
const llms: ScriptedLlm[] = [];
const downloadsDir = await mkdtemp(join(tmpdir(), "webbrain-jobs-downloads-"));

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await Promise.all(llms.map((llm) => llm.close()));
  await fixtures?.close();
  await addon?.remove();
  await rm(downloadsDir, { recursive: true, force: true });
});

const firefox = setupFirefox({
  prefs: {
    ...ADDON_PREFS,
    // Exported job files go to this test's temp folder, without asking.
    ...downloadPrefs(downloadsDir),
    // Notifications through Firefox's own alert windows: the system backend (libnotify over
    // D-Bus) closes every notification at once when no notification daemon runs, as on CI, so
    // notifications.getAll() would see none.
    "alerts.useSystemBackend": false,
  },
});
let settingsPage = "";

async function bg<T>(expression: string): Promise<T> {
  return evaluate<T>(firefox.client, settingsPage, expression, { awaitPromise: true });
}

async function useScriptedModel(script: ScriptStep[]): Promise<ScriptedLlm> {
  const llm = await startScriptedLlm({ dialect: "openai-chat", script });
  llms.push(llm);
  const settings = {
    providers: [scriptedProviderConfig(llm.baseUrl)],
    activeProviderId: "scripted",
    maxSteps: 10,
    planBeforeAct: false,
    verbose: "normal",
  };
  await bg(`browser.storage.local.set({ settings: ${JSON.stringify(settings)} }).then(() => true)`);
  return llm;
}

let pageCounter = 0;
async function openPage(path: string): Promise<{ tabId: number; url: string }> {
  const context = await firefox.newTab();
  const url = `${fixtures!.url(path)}?owner=${++pageCounter}`;
  await navigate(firefox.client, context, url);
  return { tabId: await firefoxTabId(firefox.client, settingsPage, url), url };
}

interface JobView {
  id: string;
  state: string;
  runCount: number;
  lastTabId?: string;
  lastResult?: { status: string; text: string };
}

async function jobsOf(tabId: number): Promise<JobView[]> {
  const reply = await bg<{ ok: boolean; value: JobView[] }>(
    `browser.runtime.sendMessage({ type: "wb_jobs_list", tabId: ${tabId} })`,
  );
  return reply.value;
}

async function chat(tabId: number, text: string, mode = "act"): Promise<void> {
  const reply = await bg<{ ok: boolean; error?: string }>(
    `browser.runtime.sendMessage({ type: "chat_start", tabId: ${tabId}, text: ${JSON.stringify(text)}, mode: ${JSON.stringify(mode)} })`,
  );
  expect(reply.error).toBeUndefined();
}

/** The text of the newest user message a model request carries. */
function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const user = messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

describe("scheduled tasks", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
    const limits = { minDelayMs: 1_000, minIntervalMs: 2_000, queueRetryMs: 1_000 };
    await bg(
      `browser.storage.local.set({ wb_scheduler_dev_limits: ${JSON.stringify(limits)} }).then(() => true)`,
    );
  });

  it("Firefox fires a temporary add-on's alarm after the delay asked, even under a second", async () => {
    const delays = await bg<number[]>(`(async () => {
      const delays = [];
      for (const ask of [300, 1000]) {
        const name = "probe-" + ask;
        const start = Date.now();
        const fired = new Promise((resolve) => {
          const listener = (alarm) => {
            if (alarm.name !== name) return;
            browser.alarms.onAlarm.removeListener(listener);
            resolve(Date.now() - start);
          };
          browser.alarms.onAlarm.addListener(listener);
        });
        browser.alarms.create(name, { when: start + ask });
        delays.push(await fired);
      }
      return delays;
    })()`);
    console.log(`alarm delays asked 300 ms / 1000 ms, fired after ${delays.join(" / ")} ms`);
    expect(delays[0]).toBeGreaterThanOrEqual(250);
    expect(delays[0]).toBeLessThan(300 + ALARM_SLACK_MS);
    expect(delays[1]).toBeGreaterThanOrEqual(950);
    expect(delays[1]).toBeLessThan(1_000 + ALARM_SLACK_MS);
  });

  it("schedule_task from the model runs later in an inactive tab and reports in its chat", async () => {
    const owner = await openPage("/extension/signup.html");
    const target = `${fixtures!.url("/extension/article.html")}?scheduled=1`;
    const llm = await useScriptedModel([
      {
        toolCalls: [
          {
            name: "schedule_task",
            arguments: {
              title: "Headline check",
              prompt: "Tell me the page's headline.",
              schedule: { type: "once", after_seconds: 2 },
              target: { type: "url", url: target },
              mode: "ask",
            },
          },
        ],
      },
      { text: "Scheduled it." },
      { text: "The headline is about the Lighthouse of Alexandria." },
    ]);
    await chat(owner.tabId, "In two seconds, read the headline of the article page.");
    const [job] = await until(
      () => jobsOf(owner.tabId),
      (jobs) => jobs.length === 1,
      "the job to be listed",
    );
    expect(job?.state).toBe("pending");

    await waitFor(async () => llm.requests.length >= 3, {
      timeoutMs: 20_000,
      message: "the scheduled run never called the model",
    });
    expect(lastUserText(llm.requests[2]?.body)).toContain("Tell me the page's headline.");
    const finished = await until(
      () => jobsOf(owner.tabId),
      (jobs) => jobs[0]?.state === "completed",
      "the job to complete",
    );
    expect(finished[0]?.lastResult).toMatchObject({
      status: "completed",
      text: expect.stringContaining("Lighthouse"),
    });

    // The run used a new tab on the target URL, opened inactive (the user's tab kept focus).
    const tabs = await bg<{ id: number; url: string; active: boolean }[]>(
      "browser.tabs.query({}).then((tabs) => tabs.map((t) => ({ id: t.id, url: t.url, active: t.active })))",
    );
    const runTab = tabs.find((tab) => tab.url === target);
    expect(runTab).toBeDefined();
    expect(runTab?.active).toBe(false);
    expect(finished[0]?.lastTabId).toBe(String(runTab?.id));

    // That tab's chat shows the run, its opening marked as scheduled.
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${runTab?.id}`);
    await setViewport(firefox.client, sidebar, SIDEBAR_WIDTH_PX, SIDEBAR_HEIGHT_PX);
    await waitForText(firefox.client, sidebar, "#transcript .msg.user", "Scheduled task “Headline check”");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Lighthouse of Alexandria");
    await screenshot(firefox.client, sidebar, "scheduled-1-run-in-chat");
    await firefox.client.send("browsingContext.close", { context: sidebar });
  });

  it("a scheduled run that needs a person notifies them, waits, and ends needing the user when nobody comes", async () => {
    const owner = await openPage("/extension/signup.html");
    const target = `${fixtures!.url("/extension/article.html")}?person=1`;
    const llm = await useScriptedModel([
      {
        toolCalls: [
          {
            name: "schedule_task",
            arguments: {
              title: "Bank check",
              prompt: "Read my bank balance.",
              schedule: { type: "once", after_seconds: 1 },
              target: { type: "url", url: target },
              mode: "act",
            },
          },
        ],
      },
      { text: "Scheduled it." },
      { toolCalls: [{ name: "pause_for_user", arguments: { message: "Log in to the bank." } }] },
    ]);
    // Nobody is at the sidebar: the run waits 0.1 min (stored settings take fractions; the form
    // takes whole minutes) for the person, then gives up.
    await bg(
      "browser.storage.local.get('settings').then(({ settings }) => browser.storage.local.set({ settings: { ...settings, personWaitMinutes: 0.1 } })).then(() => true)",
    );
    await chat(owner.tabId, "In a second, read my bank balance.");
    await waitFor(async () => llm.requests.length >= 3, {
      timeoutMs: 20_000,
      message: "the scheduled run never called the model",
    });
    // While it waits: one notification from WebBrain saying why, and the job is still running.
    const shown = await until(
      () => bg<Record<string, { message?: string }>>("browser.notifications.getAll()"),
      (all) => Object.keys(all).some((id) => id.startsWith("webbrain-person-")),
      "the person's notification",
    );
    const notice = Object.entries(shown).find(([id]) => id.startsWith("webbrain-person-"))?.[1];
    expect(notice?.message).toContain("Log in to the bank.");
    expect((await jobsOf(owner.tabId))[0]?.state).toBe("running");

    const ended = await until(
      () => jobsOf(owner.tabId),
      (jobs) => jobs[0]?.state === "needs_user_input",
      "the job to end needing the user",
    );
    expect(ended[0]?.lastResult?.text).toContain("needed a person");
    expect(ended[0]?.lastResult?.text).toContain("Log in to the bank.");
    // The wait ended: the notification is gone, and the model was not asked again.
    await waitFor(
      async () =>
        !Object.keys(await bg<Record<string, unknown>>("browser.notifications.getAll()")).some((id) =>
          id.startsWith("webbrain-person-"),
        ),
      { message: "the notification was not cleared" },
    );
    expect(llm.requests.length).toBe(3);
    // A job left needing the user runs again when the add-on restarts (no run silently lost):
    // removed here, so the reload test below meets only its own job.
    await bg(
      `browser.runtime.sendMessage({ type: "wb_jobs_remove", jobId: ${JSON.stringify(ended[0]?.id)} })`,
    );
  });

  it("a recurring job fires twice, is listed in its tab's sidebar, and stops when cancelled there", async () => {
    const owner = await openPage("/extension/article.html");
    const llm = await useScriptedModel([
      {
        toolCalls: [
          {
            name: "schedule_task",
            arguments: {
              prompt: "Count the headings.",
              schedule: { type: "recurring", interval_minutes: RECURRING_INTERVAL_MS / 60_000 },
            },
          },
        ],
      },
      { text: "Every three seconds, then." },
      { text: "Run one: 3 headings." },
      { text: "Run two: 3 headings." },
      { text: "Run three (should not be needed)." },
    ]);
    await chat(owner.tabId, "Count the headings every 3 seconds.");
    const twice = await until(
      () => jobsOf(owner.tabId),
      (jobs) => (jobs[0]?.runCount ?? 0) >= 2,
      "the recurring job to run twice",
      30_000,
    );
    expect(twice[0]?.lastResult?.text).toMatch(/Run (two|three)/);
    // The owner tab's sidebar lists the job (kind, schedule, last result); Cancel there stops it.
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${owner.tabId}`);
    await setViewport(firefox.client, sidebar, SIDEBAR_WIDTH_PX, SIDEBAR_HEIGHT_PX);
    await waitForText(firefox.client, sidebar, "#scheduled-jobs", "Task: Count the headings.");
    await waitForText(firefox.client, sidebar, "#scheduled-jobs", "every 0.05 min");
    await waitForText(firefox.client, sidebar, "#scheduled-jobs .job-last", /Last: completed \(Run/);
    await screenshot(firefox.client, sidebar, "scheduled-2-recurring-listed");
    await click(firefox.client, sidebar, "#scheduled-jobs .job-cancel");
    await waitForText(firefox.client, sidebar, "#scheduled-jobs .job-state", "cancelled");
    await screenshot(firefox.client, sidebar, "scheduled-3-cancelled");
    await firefox.client.send("browsingContext.close", { context: sidebar });
    const after = llm.requests.length;
    // Cancelled means no alarm is armed for the job, so Firefox has nothing left to fire for it
    // (a run already under way may finish, and must not re-arm it).
    const jobAlarm = alarmName(twice[0]!.id);
    await until(
      () => bg<boolean>(`browser.alarms.get(${JSON.stringify(jobAlarm)}).then((a) => a !== undefined)`),
      (armed) => !armed,
      "the cancelled job's alarm to be cleared",
    );
    // Then a later event: Firefox fires alarms in time order, so by the time an alarm set one
    // interval from now fires, the cancelled job's next run would have been due.
    await bg(`new Promise((resolve) => {
      const name = "after-cancel-probe";
      browser.alarms.onAlarm.addListener(function heard(alarm) {
        if (alarm.name !== name) return;
        browser.alarms.onAlarm.removeListener(heard);
        resolve(true);
      });
      browser.alarms.create(name, { when: Date.now() + ${RECURRING_INTERVAL_MS} });
    })`);
    expect(llm.requests.length - after).toBeLessThanOrEqual(1);
    expect(
      await bg<boolean>(`browser.alarms.get(${JSON.stringify(jobAlarm)}).then((a) => a !== undefined)`),
    ).toBe(false);
    expect((await jobsOf(owner.tabId))[0]?.state).toBe("cancelled");
  });

  it("Export in the sidebar saves a task as a versioned job file for webbrain run --job", async () => {
    const owner = await openPage("/extension/signup.html");
    const target = fixtures!.url("/extension/article.html");
    await useScriptedModel([
      {
        toolCalls: [
          {
            name: "schedule_task",
            arguments: {
              title: "Morning headline",
              prompt: "Tell me the page's headline.",
              schedule: { type: "recurring", interval_minutes: 60 },
              target: { type: "url", url: target },
              mode: "ask",
            },
          },
        ],
      },
      { text: "Every hour, then." },
    ]);
    await chat(owner.tabId, "Every hour, read the headline of the article page.");
    const [job] = await until(
      () => jobsOf(owner.tabId),
      (jobs) => jobs.length === 1,
      "the job to be listed",
    );
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${owner.tabId}`);
    await waitForText(firefox.client, sidebar, "#scheduled-jobs", "Task: Morning headline");
    await click(firefox.client, sidebar, "#scheduled-jobs .job-export");
    const name = "webbrain-job-morning-headline.json";
    // Firefox creates the file before it writes it: wait until it holds the whole JSON.
    let file: Record<string, unknown> | undefined;
    await waitFor(
      async () => {
        if (!(await readdir(downloadsDir)).includes(name)) return false;
        file = await readFile(join(downloadsDir, name), "utf8")
          .then((text) => JSON.parse(text) as Record<string, unknown>)
          .catch(() => undefined);
        return file !== undefined;
      },
      { timeoutMs: 15_000, message: `no complete ${name} in the downloads folder` },
    );
    expect(file).toEqual({
      format: "webbrain-job",
      version: 1,
      exportedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      job: {
        kind: "task",
        title: "Morning headline",
        prompt: "Tell me the page's headline.",
        mode: "ask",
        url: target,
        schedule: { type: "recurring", intervalMinutes: 60, firstRunAt: expect.stringMatching(/^\d{4}-/) },
      },
    });
    await click(firefox.client, sidebar, "#scheduled-jobs .job-cancel");
    await firefox.client.send("browsingContext.close", { context: sidebar });
    expect(job?.state).toBe("pending");
  });

  it("a job scheduled before an add-on reload runs after it", async () => {
    const owner = await openPage("/extension/signup.html");
    const llm = await useScriptedModel([
      {
        toolCalls: [
          {
            name: "schedule_task",
            arguments: { prompt: "Survive the reload.", schedule: { after_seconds: 4 } },
          },
        ],
      },
      { text: "Scheduled." },
      { text: "Ran after the reload." },
    ]);
    await chat(owner.tabId, "In four seconds, check the page.");
    await until(
      () => jobsOf(owner.tabId),
      (jobs) => jobs.length === 1,
      "the job to be stored",
    );
    // Reload the add-on: its background page, alarms and pages all go away; storage stays.
    await evaluate(firefox.client, settingsPage, "browser.runtime.reload()").catch(() => undefined);
    await waitFor(async () => llm.requests.length >= 3, {
      timeoutMs: 30_000,
      message: "the job did not run after the reload",
    });
    expect(lastUserText(llm.requests[2]?.body)).toContain("Survive the reload.");
  });
});

async function until<T>(
  probe: () => Promise<T>,
  ready: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  let last: T | undefined;
  await waitFor(
    async () => {
      last = await probe();
      return ready(last);
    },
    { timeoutMs, intervalMs: 200, message: `waited for ${what}` },
  );
  return last as T;
}
