/**
 * Issue 20, points 6 and 4 in the add-on, installed in real Firefox with a scripted model over
 * HTTP:
 * - a sidebar run (Act, Deep verbose, tracing on) types a password into a fixture sign-in page
 *   (security/login.html) and repeats it in its summary: the page gets it, but the stored trace
 *   (IndexedDB), the run journal and the transcript (storage.session `runUi:` / `tabChat:`) hold
 *   no occurrence of it, and "Save as workflow" names it as a secret input without showing it;
 * - a workflow file imported in the traces page is marked as not approved: Run shows its steps
 *   and runs nothing until the user approves; after approval the gates still hold: an
 *   `execute_js` step is refused (Act), and a click the user denies at the panel's permission
 *   prompt never reaches the page's server.
 */
import { mkdtempSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  type FixtureServer,
  findRef,
  lastToolResultText,
  readBody,
  type ScriptedLlm,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  chooseFile,
  click,
  count,
  fill,
  firefoxTabId,
  installAndOpenSettings,
  openAddonPage,
  pressEnter,
  scriptedSettings,
  storeSettings,
  text,
  waitForText,
} from "./addon-harness.js";

const PASSWORD = "Tr0ub4dor&3-addon";
const workDir = mkdtempSync(join(tmpdir(), "webbrain-addon-secrets-"));

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
/** A second origin, where no permission was granted "always" during the sidebar run. */
let otherOrigin: FixtureServer | undefined;
let llm: ScriptedLlm | undefined;
const hits: { path: string; body: string }[] = [];

function counted(path: string) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    hits.push({ path, body: await readBody(req) });
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  };
}

const hitsOf = (path: string) => hits.filter((hit) => hit.path === path);

beforeAll(async () => {
  addon = await buildAddon();
  const routes = {
    "/api/login": counted("/api/login"),
    "/api/pay": counted("/api/pay"),
    "/pwned": counted("/pwned"),
  };
  fixtures = await startFixtureServer({ routes });
  otherOrigin = await startFixtureServer({ routes });
}, 180_000);

afterAll(async () => {
  await llm?.close();
  await fixtures?.close();
  await otherOrigin?.close();
  await addon?.remove();
  await rm(workDir, { recursive: true, force: true });
});

const firefox = setupFirefox({ prefs: ADDON_PREFS });
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

async function openTracesPage(): Promise<string> {
  const context = await openAddonPage(firefox.client, settingsPage, "traces.html");
  await waitFor(() => evaluate<boolean>(firefox.client, context, "document.body.dataset.ready === '1'"), {
    timeoutMs: 30_000,
    message: "the traces page to load",
  });
  return context;
}

/** Everything the trace store holds, as one JSON text (read in an add-on page: same origin). */
function storedTraces(context: string): Promise<string> {
  return evaluate<string>(
    firefox.client,
    context,
    `new Promise((resolve, reject) => {
      const open = indexedDB.open("webbrain-traces");
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const all = open.result.transaction("traces").objectStore("traces").getAll();
        all.onsuccess = () => resolve(JSON.stringify(all.result));
        all.onerror = () => reject(all.error);
      };
    })`,
    { awaitPromise: true },
  );
}

describe("secrets and imported workflows in the add-on", () => {
  let sidebar = "";
  let tabId = 0;

  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
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
              { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Sign in") } },
              { name: "wait_for_stable", arguments: {} },
            ],
          };
        },
        { toolCalls: [{ name: "done", arguments: { summary: `Signed in; the password was ${PASSWORD}.` } }] },
      ],
    });
    await storeSettings(
      firefox.client,
      settingsPage,
      scriptedSettings(llm.baseUrl, { maxSteps: 10, verbose: "deep" }),
      { traceSettings: { enabled: true } },
    );
  }, 120_000);

  it("keeps a typed password out of the trace store, the run journal and the transcript", async () => {
    const page = await firefox.newTab();
    const url = fixtures!.url("/security/login.html");
    await navigate(firefox.client, page, url);
    tabId = await firefoxTabId(firefox.client, settingsPage, url);
    sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
    await waitForText(firefox.client, sidebar, "#tab-title", "Sign in");
    await click(firefox.client, sidebar, `input[name="mode"][value="act"] + span`);
    await fill(firefox.client, sidebar, "#input", "sign in as ada@example.com with my usual password");
    await pressEnter(firefox.client, sidebar);
    await answeringPrompts(
      sidebar,
      () => hitsOf("/api/login").length === 1,
      "the sign-in from the sidebar run",
    );
    expect(JSON.parse(hitsOf("/api/login")[0]!.body)).toEqual({
      email: "ada@example.com",
      password: PASSWORD,
      code: "",
    });
    await waitForText(firefox.client, sidebar, "#transcript", "Signed in; the password was [secret].");

    const session = await evaluate<string>(
      firefox.client,
      sidebar,
      `browser.storage.session.get(["runUi:${tabId}", "tabChat:${tabId}"]).then((s) => JSON.stringify(s))`,
      { awaitPromise: true },
    );
    expect(session).toContain(`runUi:${tabId}`);
    expect(session).toContain("type_ax");
    expect(session).not.toContain(PASSWORD);

    const traces = await openTracesPage();
    await waitForText(firefox.client, traces, "#list", "sign in as ada@example.com");
    const stored = await storedTraces(traces);
    expect(stored).toContain("[secret]");
    expect(stored).toContain('"secret":true');
    expect(stored).not.toContain(PASSWORD);

    // "Save as workflow": the password is a secret input, not a value shown or stored.
    await click(firefox.client, sidebar, "#save-workflow");
    await waitForText(firefox.client, sidebar, "#workflow-save", 'Input for "Password": a secret');
    expect(await text(firefox.client, sidebar, "#workflow-save")).not.toContain(PASSWORD);
    await click(firefox.client, sidebar, "#workflow-save button[type=submit]");
    await waitForText(firefox.client, sidebar, "#workflow-status", "Saved workflow");
    const workflows = await evaluate<string>(
      firefox.client,
      sidebar,
      "browser.storage.local.get('workflows').then((s) => JSON.stringify(s.workflows))",
      { awaitPromise: true },
    );
    expect(workflows).toContain('\\"secret\\": true');
    expect(workflows).not.toContain(PASSWORD);
  }, 240_000);

  it("shows an imported workflow's steps for approval, and its steps still pass the gates after it", async () => {
    const url = otherOrigin!.url("/security/replay-target.html");
    const file = join(workDir, "imported.workflow.json");
    const workflow = {
      webbrainWorkflow: 2,
      name: "Imported payment",
      createdAt: "2026-12-01T00:00:00.000Z",
      fromRun: "elsewhere",
      startUrl: url,
      params: [],
      steps: [{ tool: "click_ax", args: {}, target: { role: "button", name: "Pay now", within: [] }, url }],
    };
    await writeFile(file, JSON.stringify(workflow));
    const traces = await openTracesPage();
    await chooseFile(firefox.client, traces, "#import-workflow", file);
    const item = "#workflow-list li:last-child";
    await waitForText(firefox.client, traces, item, "Imported payment");
    expect(await text(firefox.client, traces, item)).toContain("Imported: its steps are shown for approval");

    // Run shows the steps and runs nothing; Cancel keeps it unapproved.
    await click(firefox.client, traces, `${item} button.run`);
    await waitForText(
      firefox.client,
      traces,
      `${item} .workflow-approval`,
      'Check the 1 steps of "Imported payment"',
    );
    expect(await text(firefox.client, traces, `${item} .workflow-approval`)).toContain(
      '1. click_ax on button "Pay now" {}',
    );
    await click(firefox.client, traces, `${item} .workflow-approval button.cancel`);
    expect(hitsOf("/api/pay")).toEqual([]);
    expect(await text(firefox.client, traces, item)).toContain("Imported: its steps are shown for approval");

    // Approved, it runs, and the click on an origin nobody granted asks: denied, nothing is paid.
    await click(firefox.client, traces, `${item} button.run`);
    await click(firefox.client, traces, `${item} .workflow-approval button.approve`);
    await waitForText(firefox.client, traces, `${item} .workflow-permission`, "Allow interact on");
    await click(firefox.client, traces, `${item} .workflow-permission button.deny`);
    await waitForText(firefox.client, traces, "#workflow-status", "The replay stopped at step 1", 60_000);
    expect(await text(firefox.client, traces, "#workflow-status")).toContain("The user denied interact");
    expect(hitsOf("/api/pay")).toEqual([]);
    // Approval is kept: the marker is gone after a reload of the list.
    const stored = await evaluate<string>(
      firefox.client,
      traces,
      "browser.storage.local.get('workflows').then((s) => JSON.stringify(s.workflows))",
      { awaitPromise: true },
    );
    expect(stored).not.toContain('"approved":false');
  }, 180_000);

  it("refuses an imported execute_js step even after approval (Act mode)", async () => {
    const url = otherOrigin!.url("/security/replay-target.html");
    const file = join(workDir, "execute.workflow.json");
    const workflow = {
      webbrainWorkflow: 2,
      name: "Imported script",
      startUrl: url,
      params: [],
      steps: [{ tool: "execute_js", args: { code: "fetch('/pwned', { method: 'POST', body: 'x' })" }, url }],
    };
    await writeFile(file, JSON.stringify(workflow));
    const traces = await openTracesPage();
    await chooseFile(firefox.client, traces, "#import-workflow", file);
    const item = "#workflow-list li:last-child";
    await waitForText(firefox.client, traces, item, "Imported script");
    await click(firefox.client, traces, `${item} button.run`);
    await click(firefox.client, traces, `${item} .workflow-approval button.approve`);
    await waitForText(firefox.client, traces, "#workflow-status", "The replay stopped at step 1", 60_000);
    expect(await text(firefox.client, traces, "#workflow-status")).toMatch(/execute_js failed: .*Dev/);
    expect(hitsOf("/pwned")).toEqual([]);
  }, 180_000);
});
