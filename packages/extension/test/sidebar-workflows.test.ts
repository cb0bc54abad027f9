/**
 * Saved workflows from the sidebar, handover to the agent, and trace files, in the installed
 * add-on in real Firefox with a scripted model over HTTP:
 * - an Act run on the order form (Deep verbose, recording on) finishes; the sidebar offers
 *   "Save as workflow", the user names the inputs (the typed name becomes "customer"), the
 *   workflow is listed, and its Run button replays it with another customer on the redesigned
 *   form whose refs all changed: the same data is submitted;
 * - on the form whose Email field is gone the replay stops; the user lets the agent finish, and
 *   the model is given the goal, the step done and the steps left, and completes the order;
 * - the trace keeps the model request (Deep verbose), and Export then Import in the traces page
 *   brings the same run back from the downloaded file.
 */
import { mkdtempSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  adaOrderCalls,
  collectJsonRoute,
  type FixtureServer,
  findRef,
  lastToolResultText,
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
  pressEnter,
  scriptedProviderConfig,
  text,
  until,
  waitForText,
} from "./addon-harness.js";

// Firefox saves downloads (the traces page's Export) here without asking.
const downloads = mkdtempSync(join(tmpdir(), "webbrain-export-"));

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

const firefox = setupFirefox({
  prefs: {
    ...ADDON_PREFS,
    ...downloadPrefs(downloads),
    "browser.helperApps.neverAsk.saveToDisk": "application/x-ndjson,application/json",
  },
});
let settingsPage = "";

/** Answers "Always allow" to any permission prompt in `sidebar` until `done` holds. */
async function answeringPrompts(sidebar: string, done: () => boolean | Promise<boolean>, message: string) {
  await waitFor(
    async () => {
      if ((await count(firefox.client, sidebar, "#live .prompt")) > 0) {
        await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(2)").catch(() => undefined);
      }
      return done();
    },
    { timeoutMs: 90_000, intervalMs: 200, message },
  );
}

/** Puts a file into an `<input type=file>` of an add-on page, as the file picker would. */
async function chooseFile(context: string, selector: string, path: string): Promise<void> {
  const found = await firefox.client.send("script.evaluate", {
    expression: `document.querySelector(${JSON.stringify(selector)})`,
    target: { context },
    awaitPromise: false,
    resultOwnership: "root",
  });
  if (found.type !== "success" || !("sharedId" in found.result) || !found.result.sharedId) {
    throw new Error(`no element ${selector}`);
  }
  await firefox.client.send("input.setFiles", {
    context,
    element: { sharedId: found.result.sharedId },
    files: [path],
  });
}

async function openTracesPage(): Promise<string> {
  const context = await openAddonPage(firefox.client, settingsPage, "traces.html");
  await waitFor(() => evaluate<boolean>(firefox.client, context, "document.body.dataset.ready === '1'"), {
    timeoutMs: 30_000,
    message: "the traces page to load",
  });
  return context;
}

describe("saved workflows from the sidebar", () => {
  let sidebar = "";
  let runId = "";

  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        // The recorded run.
        { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
        (req) => {
          const tree = lastToolResultText(req);
          return {
            toolCalls: [...adaOrderCalls(tree), { name: "wait_for_stable", arguments: {} }],
          };
        },
        { toolCalls: [{ name: "done", arguments: { summary: "Ordered 3 for Ada." } }] },
        // The handover after the replay stopped on the form without an Email field.
        (req) => {
          const task = userTexts(req).join("\n");
          expect(task).toContain('Finish the saved workflow "Order for a customer".');
          expect(task).toContain("Its goal (the task it was recorded from): order 3 for Ada Lovelace");
          expect(task).toContain("Its replay stopped at step 2: the page no longer matches");
          expect(task).toMatch(
            /Already done on this page by the replay[^\n]*\n1\. type_ax on textbox "Name"[^\n]*"Grace Hopper"/,
          );
          expect(task).toMatch(/2\. type_ax on textbox "Email"[^\n]*"ada@example.com"/);
          return { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
        },
        (req) => {
          const tree = lastToolResultText(req);
          return {
            toolCalls: [
              {
                name: "type_ax",
                arguments: { ref_id: findRef(tree, "textbox", "Phone"), value: "555-0100" },
              },
              { name: "type_ax", arguments: { ref_id: findRef(tree, "spinbutton", "Quantity"), value: "3" } },
              { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Save") } },
              { name: "wait_for_stable", arguments: {} },
            ],
          };
        },
        { toolCalls: [{ name: "done", arguments: { summary: "Finished the order with a phone number." } }] },
      ],
    });
    const settings = {
      providers: [scriptedProviderConfig(llm.baseUrl)],
      activeProviderId: "scripted",
      maxSteps: 20,
      planBeforeAct: false,
      verbose: "deep",
    };
    await evaluate(
      firefox.client,
      settingsPage,
      `browser.storage.local.set({ settings: ${JSON.stringify(settings)}, traceSettings: { enabled: true } }).then(() => true)`,
      { awaitPromise: true },
    );
  }, 120_000);

  it("saves a finished sidebar run with named inputs and replays it on the redesigned form", async () => {
    const page = await firefox.newTab();
    const url = fixtures!.url("/workflow/order-v1.html");
    await navigate(firefox.client, page, url);
    const tabId = await firefoxTabId(firefox.client, settingsPage, url);
    sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
    await waitForText(firefox.client, sidebar, "#tab-title", "New order");
    await click(firefox.client, sidebar, `input[name="mode"][value="act"] + span`);
    await fill(firefox.client, sidebar, "#input", "order 3 for Ada Lovelace, ada@example.com");
    await pressEnter(firefox.client, sidebar);
    await answeringPrompts(sidebar, () => orders.length === 1, "the order from the sidebar run");
    expect(orders[0]).toEqual({ name: "Ada Lovelace", email: "ada@example.com", quantity: "3" });
    await waitForText(firefox.client, sidebar, "#transcript", "Ordered 3 for Ada.");

    // The finished run offers "Save as workflow"; the form lists every typed value as an input.
    await waitFor(async () => (await count(firefox.client, sidebar, "#save-workflow:not([hidden])")) === 1, {
      message: "the Save as workflow button on the finished run",
    });
    await click(firefox.client, sidebar, "#save-workflow");
    await waitForText(firefox.client, sidebar, "#workflow-save", 'Input for "Name" (typed: "Ada Lovelace")');
    expect(await text(firefox.client, sidebar, "#workflow-save")).toContain('Input for "Email"');
    await fill(firefox.client, sidebar, '#workflow-save input[name="workflow-name"]', "Order for a customer");
    await fill(firefox.client, sidebar, '#workflow-save input[data-value="Ada Lovelace"]', "customer");
    await click(firefox.client, sidebar, "#workflow-save button[type=submit]");
    await waitForText(
      firefox.client,
      sidebar,
      "#workflow-status",
      'Saved workflow "Order for a customer" (inputs: customer, email, quantity).',
    );
    const stored = await evaluate<string[]>(
      firefox.client,
      sidebar,
      "browser.storage.local.get('workflows').then((s) => s.workflows)",
      { awaitPromise: true },
    );
    expect(stored).toHaveLength(1);
    const workflow = JSON.parse(stored[0]!) as { goal: string; params: { name: string }[]; steps: unknown[] };
    expect(workflow.goal).toBe("order 3 for Ada Lovelace, ada@example.com");
    expect(workflow.params.map((p) => p.name)).toEqual(["customer", "email", "quantity"]);
    expect(workflow.steps).toHaveLength(4);

    // Listed with its inputs and a Run button: replay on version 2 (every ref changed).
    const item = "#workflow-list li:last-child";
    await waitForText(firefox.client, sidebar, item, "Order for a customer");
    await fill(firefox.client, sidebar, `${item} input[name="customer"]`, "Grace Hopper");
    await fill(
      firefox.client,
      sidebar,
      `${item} input[name="start-url"]`,
      fixtures!.url("/workflow/order-v2.html"),
    );
    await click(firefox.client, sidebar, `${item} button.run`);
    await waitForText(
      firefox.client,
      sidebar,
      "#workflow-status",
      'Replayed 4 steps of "Order for a customer".',
      60_000,
    );
    await waitFor(async () => orders.length === 2, { message: "the replayed order" });
    expect(orders[1]).toMatchObject({ name: "Grace Hopper", email: "ada@example.com", quantity: "3" });
  }, 240_000);

  it("hands a stopped replay to the agent when the user allows it, and the agent finishes", async () => {
    const item = "#workflow-list li:last-child";
    const v3 = fixtures!.url("/workflow/order-v3.html");
    await fill(firefox.client, sidebar, `${item} input[name="start-url"]`, v3);
    await click(firefox.client, sidebar, `${item} button.run`);
    await waitForText(firefox.client, sidebar, "#workflow-status", "The replay stopped at step 2", 60_000);
    expect(await text(firefox.client, sidebar, "#workflow-status")).toContain('no textbox named "Email"');
    expect(orders).toHaveLength(2);
    // Nothing more happens until the user allows the handover.
    await click(firefox.client, sidebar, `${item} button.handover`);
    await waitForText(
      firefox.client,
      sidebar,
      "#workflow-status",
      'The agent is finishing "Order for a customer"',
    );
    const replayTab = await firefoxTabId(firefox.client, settingsPage, v3);
    const replaySidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${replayTab}`);
    await answeringPrompts(replaySidebar, () => orders.length === 3, "the order the agent finished");
    expect(orders[2]).toEqual({ name: "Grace Hopper", phone: "555-0100", quantity: "3" });
    await waitForText(
      firefox.client,
      replaySidebar,
      "#transcript",
      "Finished the order with a phone number.",
    );
    expect(await text(firefox.client, replaySidebar, "#transcript")).toContain(
      'Finish the workflow "Order for a customer" (its replay stopped at step 2)',
    );
  }, 180_000);

  it("keeps the model request in a Deep verbose trace, and the trace survives Export then Import", async () => {
    const traces = await openTracesPage();
    await waitForText(firefox.client, traces, "#list", "order 3 for Ada Lovelace");
    const rows = await until(() =>
      evaluate<string[]>(
        firefox.client,
        traces,
        "[...document.querySelectorAll('#list li')].map((li) => li.dataset.runId + ' ' + li.textContent)",
      ).then((list) => {
        const found = list.filter((row) => row.includes("order 3 for Ada Lovelace"));
        return found.length ? found : undefined;
      }),
    );
    runId = rows[0]!.split(" ")[0]!;
    await click(firefox.client, traces, `#list li[data-run-id="${runId}"] button`);
    await waitForText(firefox.client, traces, "#detail-meta", "done");
    // The first model call (click and text use the first match; only it is opened).
    const modelStep = "#timeline li.step-model";
    await click(firefox.client, traces, `${modelStep} summary`);
    // Deep verbose: the request the model got (system prompt, the user's task, tool names).
    const request = await text(firefox.client, traces, `${modelStep} details[open] pre`);
    expect(request).toContain('"systemPrompt"');
    expect(request).toContain("order 3 for Ada Lovelace, ada@example.com");
    expect(request).toContain('"get_accessibility_tree"');

    // Export: Firefox saves the file; delete the run; Import the file: the same run is back.
    await click(firefox.client, traces, "#export");
    const name = `webbrain-trace-${runId}.jsonl`;
    const file = join(downloads, name);
    const exported = await until(
      async () =>
        (await readdir(downloads)).includes(name) ? readFile(file, "utf8").catch(() => "") : undefined,
      { timeoutMs: 20_000, message: `the exported ${name}` },
    );
    const lines = exported
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; request?: unknown });
    expect(lines[0]).toMatchObject({ type: "run_start", runId, verbose: "deep" });
    expect(lines.at(-1)).toMatchObject({ type: "run_end", status: "done" });
    expect(lines.filter((l) => l.type === "model_call").every((l) => l.request !== undefined)).toBe(true);

    await click(firefox.client, traces, "#delete");
    await waitFor(
      async () => (await count(firefox.client, traces, `#list li[data-run-id="${runId}"]`)) === 0,
      {
        message: "the deleted run gone from the list",
      },
    );
    await chooseFile(traces, "#import", file);
    await waitForText(
      firefox.client,
      traces,
      "#workflow-status",
      'Imported the run "order 3 for Ada Lovelace',
    );
    expect(await count(firefox.client, traces, `#list li[data-run-id="${runId}"]`)).toBe(1);
    await click(firefox.client, traces, `${modelStep} summary`);
    expect(await text(firefox.client, traces, `${modelStep} details[open] pre`)).toBe(request);
  }, 180_000);
});
