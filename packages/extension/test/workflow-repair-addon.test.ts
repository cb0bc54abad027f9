/**
 * Repair and save from the workflow panel, in the installed add-on in real Firefox with a
 * scripted model over HTTP: testkit's order.workflow.json (recorded on order-v1) is saved in the
 * sidebar; its Run on order-v3 (no Email field) stops at step 2; "Let the agent finish" lets the
 * model complete the order, and the agent's steps are saved as version 2 in place of version 1
 * (kept inside it); the panel's Versions toggle shows the Email step removed and the Phone step
 * added. Run of version 2 on order-v3 then submits the same order with no model request. On
 * order-v2 (an Email field, no Phone) the step the repair wrote fails again: the panel says so,
 * and after the agent finishes that order too, no version is saved and the workflow is unchanged.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  collectJsonRoute,
  DEFAULT_FIXTURES_ROOT,
  type FixtureServer,
  findRef,
  lastToolResultText,
  phoneOrderFinishCalls,
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
  fill,
  firefoxTabId,
  installAndOpenSettings,
  openAddonPage,
  scriptedProviderConfig,
  text,
  waitForText,
} from "./addon-harness.js";

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
});

const firefox = setupFirefox({ prefs: ADDON_PREFS });
const item = "#workflow-list li:first-child";
const status = "#workflow-status";
let settingsPage = "";
let sidebar = "";

/** The tree's part from the order form on (order-v2 has a newsletter form with Email and Save first). */
function orderForm(tree: string): string {
  return tree.slice(Math.max(0, tree.search(/form \\?"Order\\?"/)));
}

async function storedWorkflows(): Promise<string[]> {
  return evaluate<string[]>(
    firefox.client,
    settingsPage,
    "browser.storage.local.get('workflows').then((s) => s.workflows)",
    { awaitPromise: true },
  );
}

/**
 * Answers "Always allow" to permission prompts, in the panel (the replay's steps) and in the
 * sidebars of `tabs` (the agent's run), until `done` holds.
 */
async function answeringPrompts(done: () => Promise<boolean>, message: string, tabs: string[] = []) {
  await waitFor(
    async () => {
      if ((await count(firefox.client, sidebar, `${item} .workflow-permission`)) > 0) {
        await click(firefox.client, sidebar, `${item} .workflow-permission button.always`).catch(
          () => undefined,
        );
      }
      for (const tab of tabs) {
        if ((await count(firefox.client, tab, "#live .prompt")) > 0) {
          await click(firefox.client, tab, "#live .prompt button:nth-of-type(2)").catch(() => undefined);
        }
      }
      return done();
    },
    { timeoutMs: 90_000, intervalMs: 200, message },
  );
}

const statusShows = (expected: string | RegExp) => async () => {
  const line = await text(firefox.client, sidebar, status);
  return typeof expected === "string" ? line.includes(expected) : expected.test(line);
};

/** Runs the listed workflow on `page` and waits until the panel's status line matches `until`. */
async function runOn(page: string, until: string | RegExp): Promise<void> {
  await fill(firefox.client, sidebar, `${item} input[name="start-url"]`, fixtures!.url(`/workflow/${page}`));
  await click(firefox.client, sidebar, `${item} button.run`);
  await answeringPrompts(statusShows(until), `the replay on ${page} to end with ${until}`);
}

/** "Let the agent finish" on the stopped replay in the tab showing `page`, until the status matches. */
async function letTheAgentFinish(page: string, until: string | RegExp): Promise<void> {
  await click(firefox.client, sidebar, `${item} button.handover`);
  const replayTab = await firefoxTabId(firefox.client, settingsPage, fixtures!.url(`/workflow/${page}`));
  const replaySidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${replayTab}`);
  await answeringPrompts(statusShows(until), `the agent's run on ${page} to end with ${until}`, [
    replaySidebar,
  ]);
}

describe("repair and save from the workflow panel", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        // The first handover: order-v3 asks for a phone number instead of the email.
        (req) => {
          expect(userTexts(req).join("\n")).toContain("Its replay stopped at step 2");
          return { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
        },
        (req) => ({ toolCalls: phoneOrderFinishCalls(lastToolResultText(req)) }),
        { toolCalls: [{ name: "done", arguments: { summary: "Finished the order with a phone number." } }] },
        // The second handover: on order-v2 the Phone step the repair wrote fails.
        (req) => {
          expect(userTexts(req).join("\n")).toContain("Its replay stopped at step 2");
          return { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
        },
        (req) => {
          const tree = orderForm(lastToolResultText(req));
          return {
            toolCalls: [
              {
                name: "type_ax",
                arguments: { ref_id: findRef(tree, "textbox", "Email"), value: "ada@example.com" },
              },
              { name: "type_ax", arguments: { ref_id: findRef(tree, "spinbutton", "Quantity"), value: "3" } },
              { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Save") } },
              { name: "wait_for_stable", arguments: {} },
            ],
          };
        },
        { toolCalls: [{ name: "done", arguments: { summary: "Finished the order with the email." } }] },
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
    // Saved here (a string entry: approved), so it runs without the import approval.
    await evaluate(
      firefox.client,
      settingsPage,
      `browser.storage.local.set(${JSON.stringify({ settings, workflows: [workflow] })}).then(() => true)`,
      { awaitPromise: true },
    );
    const owner = await firefox.newTab();
    const ownerUrl = fixtures!.url("/workflow/order-v1.html?owner");
    await navigate(firefox.client, owner, ownerUrl);
    const ownerTab = await firefoxTabId(firefox.client, settingsPage, ownerUrl);
    sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${ownerTab}`);
    await waitForText(firefox.client, sidebar, "#tab-title", "New order");
    if (!(await evaluate<boolean>(firefox.client, sidebar, "document.getElementById('workflows').open"))) {
      await click(firefox.client, sidebar, "#workflows > summary");
    }
    await waitForText(firefox.client, sidebar, item, "order 3 for Ada Lovelace");
  }, 120_000);

  it("saves the agent's steps as version 2 after Let the agent finish, and shows the diff", async () => {
    // A workflow with one version has no Versions toggle.
    expect(await count(firefox.client, sidebar, `${item} button.versions`)).toBe(0);
    await runOn("order-v3.html", "The replay stopped at step 2");
    expect(await text(firefox.client, sidebar, status)).toContain('no textbox named "Email"');
    expect(orders).toHaveLength(0);
    await letTheAgentFinish("order-v3.html", "version 2 saved (repaired from step 2)");
    expect(await text(firefox.client, sidebar, status)).toBe(
      'The agent finished "order 3 for Ada Lovelace, ada@example.com": version 2 saved (repaired from step 2).',
    );
    expect(orders).toEqual([{ name: "Ada Lovelace", phone: "555-0100", quantity: "3" }]);
    expect(llm!.requests).toHaveLength(3);
    const stored = await storedWorkflows();
    expect(stored).toHaveLength(1);
    const saved = JSON.parse(stored[0]!) as {
      version?: number;
      repair?: { step: number };
      previous?: { version: number }[];
      steps: { repaired?: number }[];
    };
    expect(saved.version).toBe(2);
    expect(saved.repair?.step).toBe(2);
    expect(saved.previous?.map((p) => p.version)).toEqual([1]);
    expect(saved.steps[0]?.repaired).toBeUndefined();
    expect(saved.steps.slice(1).map((s) => s.repaired)).toEqual(saved.steps.slice(1).map(() => 2));

    // Versions: both listed, and the diff of the last two names the changed steps.
    await click(firefox.client, sidebar, `${item} button.versions`);
    const versions = await text(firefox.client, sidebar, `${item} .workflow-versions .version-list`);
    expect(versions).toContain("Version 1, recorded 2026-12-01 23:50");
    expect(versions).toMatch(/Version 2, [\d-]+ [\d:]+: repaired from step 2 \(the page no longer matches/);
    const lines = async (kind: string) =>
      evaluate<string[]>(
        firefox.client,
        sidebar,
        `[...document.querySelectorAll(${JSON.stringify(`${item} .workflow-diff li.${kind}`)})].map((li) => li.textContent)`,
      );
    const removed = await lines("removed");
    const added = await lines("added");
    // Only the Email step and its input went; the Phone step and its input came in their place.
    expect(removed).toEqual([
      expect.stringMatching(/^- 2\. type_ax on textbox "Email" in form "Order"/),
      '- parameter email ("ada@example.com")',
    ]);
    expect(added).toEqual([
      expect.stringMatching(/^\+ 2\. type_ax on textbox "Phone" in form "Order"/),
      '+ parameter phone ("555-0100")',
    ]);
    expect(await lines("same")).toEqual([
      expect.stringMatching(/^ {2}1\. type_ax on textbox "Name"/),
      expect.stringMatching(/^ {2}3\. type_ax on spinbutton "Quantity"/),
      expect.stringMatching(/^ {2}4\. click_ax on button "Save"/),
    ]);
    // Any two versions: version 2 with itself differs in nothing.
    await evaluate(
      firefox.client,
      sidebar,
      `(() => {
        const from = document.querySelector(${JSON.stringify(`${item} select[name="diff-from"]`)});
        from.value = "2";
        from.dispatchEvent(new Event("change"));
      })()`,
    );
    expect(await text(firefox.client, sidebar, `${item} .workflow-diff`)).toContain(
      "No step or input differs.",
    );
    expect([...(await lines("removed")), ...(await lines("added"))]).toEqual([]);
  }, 240_000);

  it("replays version 2 on the changed page with no model request and submits the same order", async () => {
    const asked = llm!.requests.length;
    await runOn("order-v3.html", /Replayed 4 steps of "order 3 for Ada Lovelace/);
    await waitFor(async () => orders.length === 2, { message: "the replayed order" });
    expect(orders[1]).toEqual({ name: "Ada Lovelace", phone: "555-0100", quantity: "3" });
    expect(llm!.requests).toHaveLength(asked);
  }, 180_000);

  it("reports a step the repair wrote that fails again, and saves no new version", async () => {
    const before = await storedWorkflows();
    await runOn("order-v2.html", "The replay stopped at step 2");
    expect(await text(firefox.client, sidebar, status)).toContain(
      "Step 2 was written by the repair in version 2 and fails again: check the page, then record the workflow anew.",
    );
    await letTheAgentFinish("order-v2.html", "No new version of");
    expect(await text(firefox.client, sidebar, status)).toMatch(
      /^No new version of "order 3 for Ada Lovelace, ada@example.com" was saved: step 2 was written by the repair in version 2 and failed again .*The saved workflow is unchanged\.$/,
    );
    expect(orders.at(-1)).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com", quantity: "3" });
    expect(await storedWorkflows()).toEqual(before);
  }, 240_000);
});
