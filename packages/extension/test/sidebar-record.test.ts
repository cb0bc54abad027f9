/**
 * The sidebar's Record in the installed add-on in real Firefox: the person (the test, with
 * trusted input through BiDi on the tab) presses Record, fills the sign-up form (a name, a
 * password, a plan picked with the keyboard, a checkbox ticked through its label's text) and
 * sends it, then presses Stop and save (a panel opened meanwhile offers Stop and save too). The workflow list shows the recording with its inputs
 * (the password one empty, typed for each run); Run replays it on the redesigned copy of the
 * form (other ids, nesting and label wiring) with other values, and the server gets them. The
 * recorded password is nowhere in the add-on's storage.
 */
import { type BidiClient, evaluate, navigate, performActions } from "@webbrain/bidi";
import {
  type FixtureServer,
  KEY,
  keyPresses,
  setupFirefox,
  signupRoute,
  startFixtureServer,
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
  text,
  typeKeys,
  waitForText,
} from "./addon-harness.js";

const RECORDED_PASSWORD = "hunter2-Recorded-in-addon-5d1e";
const REPLAYED_PASSWORD = "Replay-in-addon-Only-c09b";

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
const signups: Record<string, string>[] = [];

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer({ routes: { "/api/signup": signupRoute(signups) } });
}, 180_000);

afterAll(async () => {
  await fixtures?.close();
  await addon?.remove();
});

const firefox = setupFirefox({ prefs: { ...ADDON_PREFS } });

/** The person turns to this tab (the sidebar lives in a tab of its own here). */
async function lookAt(client: BidiClient, context: string): Promise<void> {
  await client.send("browsingContext.activate", { context });
}

async function storageText(context: string): Promise<string> {
  return evaluate<string>(
    firefox.client,
    context,
    "browser.storage.local.get(null).then((all) => JSON.stringify(all))",
    {
      awaitPromise: true,
    },
  );
}

describe("Record in the sidebar", () => {
  it("records the person's form as a workflow without the password, which replays on the redesigned form", async () => {
    const settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
    const page = await firefox.newTab();
    const url = fixtures!.url("/record/signup-v1.html");
    await navigate(firefox.client, page, url);
    const tabId = await firefoxTabId(firefox.client, settingsPage, url);
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
    await waitForText(firefox.client, sidebar, "#tab-title", "Create an account");
    await click(firefox.client, sidebar, "#record-workflow");
    await waitForText(firefox.client, sidebar, "#workflow-status", "Recording:");
    // A panel opened on the tab while it is recorded offers Stop and save, not Record.
    const reopened = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
    await waitFor(
      async () =>
        (await count(firefox.client, reopened, "#stop-recording:not([hidden])")) === 1 &&
        (await count(firefox.client, reopened, "#record-workflow[hidden]")) === 1,
      { message: "the reopened sidebar never showed Stop and save" },
    );

    const client = firefox.client;
    await lookAt(client, page);
    await click(client, page, "#n1");
    await typeKeys(client, page, "Ada Lovelace");
    await click(client, page, "#p1");
    await typeKeys(client, page, RECORDED_PASSWORD);
    await performActions(client, page, [
      { type: "key", id: "keyboard", actions: keyPresses([KEY.tab, KEY.arrowDown]) },
    ]);
    await click(client, page, "label span");
    await click(client, page, "#go");
    await waitFor(() => signups.length === 1, { message: "the recorded form never arrived" });
    expect(signups[0]).toEqual({
      full_name: "Ada Lovelace",
      password: RECORDED_PASSWORD,
      plan: "Pro",
      news: "on",
    });
    await waitFor(async () => (await evaluate<string>(client, page, "document.title")) === "Welcome", {
      message: "the welcome page never loaded",
    });

    await lookAt(client, sidebar);
    await click(client, sidebar, "#stop-recording");
    await waitForText(
      client,
      sidebar,
      "#workflow-status",
      'Saved the recording as workflow "Recorded on 127.0.0.1',
    );
    expect(
      await evaluate<string>(client, sidebar, "document.querySelector('#workflow-status').textContent"),
    ).toMatch(/: 5 steps \(inputs: full_name, password, plan\)\.$/);
    const stored = await storageText(sidebar);
    expect(stored).not.toContain(RECORDED_PASSWORD);
    const workflows = JSON.parse(stored).workflows as string[];
    expect(workflows).toHaveLength(1);
    const workflow = JSON.parse(workflows[0]!);
    expect(workflow.params).toEqual([
      { name: "full_name", default: "Ada Lovelace", field: "Full name" },
      { name: "password", default: "", field: "Password", secret: true },
      { name: "plan", default: "Pro", field: "Plan" },
    ]);

    // Listed with its inputs (the password one empty): Run on the redesigned form.
    const item = "#workflow-list li:last-child";
    await waitForText(client, sidebar, item, "Recorded on 127.0.0.1");
    expect(
      await evaluate<string>(
        client,
        sidebar,
        `document.querySelector('${item} input[name="password"]').value`,
      ),
    ).toBe("");
    await fill(client, sidebar, `${item} input[name="full_name"]`, "Grace Hopper");
    await fill(client, sidebar, `${item} input[name="password"]`, REPLAYED_PASSWORD);
    await fill(client, sidebar, `${item} input[name="plan"]`, "Team");
    await fill(client, sidebar, `${item} input[name="start-url"]`, fixtures!.url("/record/signup-v2.html"));
    await click(client, sidebar, `${item} button.run`);
    // Sending a form with a password is a gated action: the person allows it once, in the list.
    let asked = 0;
    let lastStatus = "";
    await waitFor(
      async () => {
        if ((await count(client, sidebar, `${item} .workflow-permission`)) > 0) {
          asked++;
          await click(client, sidebar, `${item} .workflow-permission button.once`);
        }
        lastStatus = await text(client, sidebar, "#workflow-status");
        return lastStatus.includes("Replayed 5 steps");
      },
      { timeoutMs: 60_000, intervalMs: 200, message: "the replay never finished" },
    ).catch((error: unknown) => {
      throw new Error(
        `${(error as Error).message}; the list's status: ${JSON.stringify(lastStatus)}; forms sent: ${JSON.stringify(signups)}`,
      );
    });
    expect(asked).toBeGreaterThan(0);
    await waitFor(() => signups.length === 2, { message: "the replayed form never arrived" });
    expect(signups[1]).toEqual({
      full_name: "Grace Hopper",
      password: REPLAYED_PASSWORD,
      plan: "Team",
      news: "on",
    });
    const after = await storageText(sidebar);
    expect(after).not.toContain(RECORDED_PASSWORD);
    expect(after).not.toContain(REPLAYED_PASSWORD);
  }, 240_000);
});
