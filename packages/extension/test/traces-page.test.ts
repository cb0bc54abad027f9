/**
 * Traces and saved workflows in the installed add-on, in real Firefox, as a person uses them:
 * recording turned on in the traces page, an Act task run from the sidebar (scripted model over
 * HTTP), the run listed, filtered and opened in the traces page with its timeline, saved as a
 * workflow, played back as a filmstrip of its step screenshots with the action boxes (the setting
 * turned on in the page) and exported as one HTML file that Firefox shows; and the workflow file the runner replays (testkit's order.workflow.json) imported
 * and run with the Run button on the redesigned page (every ref changed), submitting the data.
 */

import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  adaOrderCalls,
  collectJsonRoute,
  DEFAULT_FIXTURES_ROOT,
  type FixtureServer,
  findRef,
  lastToolResultText,
  readFilmstrip,
  readJsonBody,
  type ScriptedLlm,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  systemPromptText,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  chooseFile,
  click,
  count,
  downloadPrefs,
  fill,
  firefoxTabId,
  installAndOpenSettings,
  openAddonPage,
  pressEnter,
  screenshot,
  screenshotOf,
  scriptedProviderConfig,
  setViewport,
  text,
  waitForText,
} from "./addon-harness.js";

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
let llm: ScriptedLlm | undefined;
const orders: Record<string, unknown>[] = [];
const messages: { to: string; text: string }[] = [];
const carts: { body: Record<string, unknown>; authorization: string | undefined }[] = [];

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer({
    routes: {
      "/api/messages": async (req: IncomingMessage, res: ServerResponse) => {
        messages.push(await readJsonBody<{ to: string; text: string }>(req));
        res.writeHead(200).end("{}");
      },
      "/api/cart": async (req: IncomingMessage, res: ServerResponse) => {
        carts.push({
          body: await readJsonBody<Record<string, unknown>>(req),
          authorization: req.headers.authorization,
        });
        res
          .writeHead(201, { "content-type": "application/json" })
          .end(JSON.stringify({ count: carts.length }));
      },
      "/api/orders": collectJsonRoute(orders),
    },
  });
}, 180_000);

afterAll(async () => {
  await llm?.close();
  await fixtures?.close();
  await addon?.remove();
  await rm(downloadsDir, { recursive: true, force: true });
});

/** The per-step screenshot size set in the traces page for the recorded run. */
const SHOT_KB = 48;
const downloadsDir = await mkdtemp(join(tmpdir(), "webbrain-traces-downloads-"));
const firefox = setupFirefox({ prefs: { ...ADDON_PREFS, ...downloadPrefs(downloadsDir) } });
let settingsPage = "";

/** Whether an element of an add-on page is shown. */
async function visible(context: string, selector: string): Promise<boolean> {
  return evaluate<boolean>(
    firefox.client,
    context,
    `!document.querySelector(${JSON.stringify(selector)}).hidden`,
  );
}

/** The page's script is large and parses slowly on a loaded machine: wait until it is wired. */
async function waitForReady(context: string): Promise<void> {
  await waitFor(() => evaluate<boolean>(firefox.client, context, "document.body.dataset.ready === '1'"), {
    timeoutMs: 30_000,
    message: "the traces page to load",
  });
}

/** The traces page at the sidebar's width: it must read well as narrow as 360 px. */
async function openTracesPage(): Promise<string> {
  const context = await openAddonPage(firefox.client, settingsPage, "traces.html");
  await setViewport(firefox.client, context, 360, 900);
  await waitForReady(context);
  return context;
}

describe("traces page", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
  });

  it("records a sidebar run and shows it with its timeline; the run saves as a workflow", async () => {
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }], usage: { input: 800, output: 10 } },
        (req) => {
          const tree = lastToolResultText(req);
          return {
            toolCalls: [...adaOrderCalls(tree)],
            usage: { input: 1200, output: 60 },
          };
        },
        {
          toolCalls: [
            { name: "wait_for_stable", arguments: {} },
            { name: "get_accessibility_tree", arguments: {} },
          ],
        },
        { toolCalls: [{ name: "done", arguments: { summary: "Ordered 3 for Ada." } }] },
      ],
    });
    const settings = {
      providers: [scriptedProviderConfig(llm.baseUrl)],
      activeProviderId: "scripted",
      maxSteps: 20,
      planBeforeAct: false,
      verbose: "normal",
    };
    await evaluate(
      firefox.client,
      settingsPage,
      `browser.storage.local.set({ settings: ${JSON.stringify(settings)} })`,
    );

    // Recording is opt-in: turn it on in the traces page, as a person would.
    const traces = await openTracesPage();
    expect(await text(firefox.client, traces, "#empty")).toContain("No recorded runs");
    await click(firefox.client, traces, "#record");
    // And a screenshot per step, for the filmstrip (a later test plays this run).
    await fill(firefox.client, traces, "#shot-kb", String(SHOT_KB));
    await pressEnter(firefox.client, traces);
    await waitFor(
      async () =>
        evaluate<boolean>(
          firefox.client,
          traces,
          `browser.storage.local.get('traceSettings').then((s) => s.traceSettings?.enabled === true && s.traceSettings?.shotKb === ${SHOT_KB})`,
          { awaitPromise: true },
        ),
      { message: "recording turned on, with step screenshots" },
    );

    const page = await firefox.newTab();
    const url = fixtures!.url("/workflow/order-v1.html");
    await navigate(firefox.client, page, url);
    const tabId = await firefoxTabId(firefox.client, settingsPage, url);
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
    await waitForText(firefox.client, sidebar, "#tab-title", "New order");
    await click(firefox.client, sidebar, `input[name="mode"][value="act"] + span`);
    await fill(firefox.client, sidebar, "#input", "order 3 for Ada Lovelace, ada@example.com");
    await pressEnter(firefox.client, sidebar);
    // Answer "Always allow" to the permission prompt until the order is in.
    await waitFor(
      async () => {
        if ((await count(firefox.client, sidebar, "#live .prompt")) > 0) {
          await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(2)").catch(() => undefined);
        }
        return orders.length === 1;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: "the order from the sidebar run" },
    );
    expect(orders[0]).toEqual({ name: "Ada Lovelace", email: "ada@example.com", quantity: "3" });
    await waitForText(firefox.client, sidebar, "#transcript", "Ordered 3 for Ada.");

    // The traces page lists the run (after a reload), filters by site and outcome, opens it.
    // A fresh traces page (an add-on page cannot be navigated to over BiDi) lists the run.
    const list = await openTracesPage();
    await waitForText(firefox.client, list, "#list", "order 3 for Ada Lovelace");
    const site = new URL(url).host;
    await evaluate(
      firefox.client,
      list,
      `(() => { const s = document.getElementById("site"); s.value = ${JSON.stringify(site)}; s.dispatchEvent(new Event("change")); return true; })()`,
    );
    expect(await count(firefox.client, list, "#list li")).toBe(1);
    await fill(firefox.client, list, "#search", "no such task");
    expect(await count(firefox.client, list, "#list li")).toBe(0);
    await fill(firefox.client, list, "#search", "Ada");
    expect(await count(firefox.client, list, "#list li")).toBe(1);
    await click(firefox.client, list, "#list li button");
    await waitForText(firefox.client, list, "#detail-meta", "done");
    const timeline = await text(firefox.client, list, "#timeline");
    expect(timeline).toMatch(/model call \(step 1\): 800 in \/ 10 out tokens/);
    expect(timeline).toMatch(/type_ax .*"Ada Lovelace".* ok \(\d+ ms\) on textbox "Name" in form "Order"/);
    expect(timeline).toMatch(/click_ax .* ok .* on button "Save" in form "Order"/);
    expect(timeline).toMatch(/done after 4 model turns/);
    // Steps expand to their arguments and result.
    await click(firefox.client, list, "#timeline li.step-tool:nth-child(4) summary");
    const detail = await text(firefox.client, list, "#timeline li.step-tool:nth-child(4) details[open] pre");
    expect(detail).toContain('"value": "Ada Lovelace"');
    await screenshot(firefox.client, list, "traces-1-timeline");

    // The save form (shared with the sidebar) names the inputs; the defaults are kept here.
    await click(firefox.client, list, "#save-workflow");
    await click(firefox.client, list, "#workflow-save button[type=submit]");
    await waitForText(firefox.client, list, "#workflow-status", "Saved workflow");
    // The status is shown once the workflow is stored; the list re-renders after it (onSaved).
    await waitForText(firefox.client, list, "#workflow-list", "order 3 for Ada Lovelace");
  }, 240_000);

  it("plays the recorded run as a filmstrip with its action boxes, and exports it as one file Firefox shows", async () => {
    const traces = await openTracesPage();
    await waitForText(firefox.client, traces, "#list", "order 3 for Ada Lovelace");
    await click(firefox.client, traces, "#list li button");
    await waitForText(firefox.client, traces, "#detail-meta", "done");
    await click(firefox.client, traces, "#filmstrip-play");
    const frameContext = await waitFor(
      async () => {
        const tree = await firefox.client.send("browsingContext.getTree", { root: traces });
        const child = tree.contexts[0]?.children?.[0];
        return child && child.url === "about:srcdoc" ? child.context : undefined;
      },
      { message: "the filmstrip frame" },
    );
    // The frame is sandboxed without scripts: it is read from a BiDi sandbox realm.
    const view = await waitFor(
      async () => {
        const seen = await readFilmstrip(firefox.client, frameContext, { sandbox: "filmstrip-probe" });
        return seen.frames > 0 && seen.imagesDecoded ? seen : undefined;
      },
      { message: "the filmstrip's frames with their screenshots" },
    );
    expect(await visible(traces, "#filmstrip-note")).toBe(false);
    // A frame per tool call and one for the end; the typed name and the clicked Save have boxes.
    expect(view.scripts).toBe(0);
    expect(view.picked).toHaveLength(view.frames);
    view.picked.forEach((frame, i) => {
      expect(frame.shown).toEqual([`frame-${i + 1}`]);
    });
    // The run: the tree read, three fields typed, Save clicked, a wait, the tree again, done,
    // and the end. The four actions on elements have their boxes; the others act on none.
    expect(view.frames).toBe(9);
    expect(view.picked.map((frame) => frame.typed)).toEqual([
      undefined,
      'typed: "Ada Lovelace"',
      'typed: "ada@example.com"',
      'typed: "3"',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(view.picked.map((frame) => (frame.box?.width ?? 0) > 0)).toEqual([
      false,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    await screenshot(firefox.client, traces, "traces-4-filmstrip");

    await click(firefox.client, traces, "#filmstrip-export");
    const exported = await waitFor(
      async () => {
        const names = (await readdir(downloadsDir)).filter((name) =>
          /^webbrain-filmstrip-.*\.html$/.test(name),
        );
        if (names.length !== 1) return undefined;
        const path = join(downloadsDir, names[0]!);
        // Firefox creates the file before it writes it: wait for the whole page.
        return (await readFile(path, "utf8")).includes("</html>") ? path : undefined;
      },
      { message: "the exported filmstrip file" },
    );
    const page = await firefox.newTab();
    await navigate(firefox.client, page, pathToFileURL(exported).href);
    const file = await readFilmstrip(firefox.client, page);
    expect(file).toMatchObject({ frames: view.frames, scripts: 0, loads: 0, imagesDecoded: true });
    expect(file.picked.map((frame) => frame.heading)).toEqual(view.picked.map((frame) => frame.heading));
  }, 120_000);

  it("runs the runner's workflow file with the Run button on a page whose refs all changed", async () => {
    const traces = await openTracesPage();
    await chooseFile(
      firefox.client,
      traces,
      "#import-workflow",
      join(DEFAULT_FIXTURES_ROOT, "workflow", "order.workflow.json"),
    );
    const item = "#workflow-list li:last-child";
    await waitForText(firefox.client, traces, item, "order 3 for Ada Lovelace");
    await fill(firefox.client, traces, `${item} input[name="customer"]`, "Grace Hopper");
    await fill(
      firefox.client,
      traces,
      `${item} input[name="start-url"]`,
      fixtures!.url("/workflow/order-v2.html"),
    );
    const before = orders.length;
    await click(firefox.client, traces, `${item} button.run`);
    // An imported file runs once the user approves the steps it shows (security-secrets.test.ts).
    await click(firefox.client, traces, `${item} .workflow-approval button.approve`);
    await waitForText(firefox.client, traces, "#workflow-status", "Replayed 4 steps", 60_000);
    await screenshotOf(firefox.client, traces, ".workflows", "traces-2-workflow-replayed");
    await waitFor(async () => orders.length === before + 1, { message: "the replayed order" });
    expect(orders.at(-1)).toMatchObject({ name: "Grace Hopper", email: "ada@example.com", quantity: "3" });

    // On version 3 the Email field is gone: the replay stops and says where and why.
    await fill(
      firefox.client,
      traces,
      `${item} input[name="start-url"]`,
      fixtures!.url("/workflow/order-v3.html"),
    );
    await click(firefox.client, traces, `${item} button.run`);
    await waitForText(firefox.client, traces, "#workflow-status", "stopped at step 2", 60_000);
    expect(await text(firefox.client, traces, "#workflow-status")).toContain('no textbox named "Email"');
    expect(orders.length).toBe(before + 1);
  }, 180_000);
  it("imports trace files, keeps the store under its size limit (oldest dropped first) and deletes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "webbrain-trace-import-"));
    try {
      const file = (runId: string, task: string, minute: number) => {
        const at = `2026-12-01T10:${String(minute).padStart(2, "0")}:00.000Z`;
        const lines = [
          {
            v: 1,
            type: "run_start",
            at,
            runId,
            task,
            mode: "act",
            url: "https://shop.example/",
            verbose: "normal",
          },
          { v: 1, type: "note", at, text: "x".repeat(2000) },
          { v: 1, type: "run_end", at, status: "done", text: "ok", steps: 1 },
        ];
        return lines.map((line) => JSON.stringify(line)).join("\n");
      };
      await writeFile(join(dir, "first.jsonl"), file("imp-1", "first imported run", 1));
      await writeFile(join(dir, "second.jsonl"), file("imp-2", "second imported run", 2));
      await writeFile(join(dir, "broken.jsonl"), '{"not":"a trace"}');
      await evaluate(
        firefox.client,
        settingsPage,
        "browser.storage.local.set({ traceSettings: { enabled: false, maxBytes: 3500 } }).then(() => true)",
        { awaitPromise: true },
      );
      const traces = await openTracesPage();
      await chooseFile(firefox.client, traces, "#import", join(dir, "first.jsonl"));
      await waitForText(firefox.client, traces, "#workflow-status", 'Imported the run "first imported run"');
      await chooseFile(firefox.client, traces, "#import", join(dir, "second.jsonl"));
      await waitForText(firefox.client, traces, "#workflow-status", 'Imported the run "second imported run"');
      // 3500 bytes hold one of these traces: the older ones (the recorded run, then the first
      // import) were dropped.
      await waitForText(firefox.client, traces, "#list", "second imported run");
      expect(await count(firefox.client, traces, "#list li")).toBe(1);
      expect(await text(firefox.client, traces, "#list")).not.toContain("first imported run");
      await chooseFile(firefox.client, traces, "#import", join(dir, "broken.jsonl"));
      await waitForText(firefox.client, traces, "#workflow-status", "could not be imported");
      expect(await text(firefox.client, traces, "#workflow-status")).toContain('no "v" (format version)');
      await click(firefox.client, traces, "#delete");
      await waitFor(async () => (await count(firefox.client, traces, "#list li")) === 0, {
        message: "the deleted run gone from the list",
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
  it("API shortcut observer: shown while on, records the page's fetch, and with /allow-api the planned agent repeats it", async () => {
    const traces = await openTracesPage();
    await click(firefox.client, traces, "#observer");
    await waitForText(firefox.client, traces, "#observer-on", "API shortcut observer is ON");
    await screenshotOf(firefox.client, traces, "#recording", "traces-3-api-observer-on");
    await waitFor(
      () =>
        evaluate<string>(firefox.client, traces, "browser.browserAction.getBadgeText({})", {
          awaitPromise: true,
        }),
      { message: "the API badge on the toolbar button", timeoutMs: 10_000 },
    ).then((badge) => expect(badge).toBe("API"));

    const cartUrl = fixtures!.url("/api/cart");
    await llm?.close();
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        (req) => {
          const prompt = systemPromptText(req);
          expect(prompt).toContain("API shortcuts");
          // Request shape from webRequest's requestBody, response shape from filterResponseData.
          expect(prompt).toContain(
            `- POST ${cartUrl} body {"item":"string","qty":"number"} -> 201 {"count":"number"}`,
          );
          expect(prompt).not.toContain(`"Lamp"`);
          expect(prompt).not.toContain("page-secret-token");
          return {
            toolCalls: [
              {
                name: "submit_plan",
                arguments: { goal: "Add 2 lamps", steps: [{ action: `POST ${cartUrl} with qty 2` }] },
              },
            ],
          };
        },
        {
          toolCalls: [
            {
              name: "fetch_url",
              arguments: {
                url: cartUrl,
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ item: "Lamp", qty: 2 }),
              },
            },
          ],
        },
        { toolCalls: [{ name: "done", arguments: { summary: "Added 2 lamps through the shop's API." } }] },
      ],
    });
    const settings = {
      providers: [scriptedProviderConfig(llm.baseUrl)],
      activeProviderId: "scripted",
      maxSteps: 20,
      planBeforeAct: true,
      verbose: "normal",
    };
    await evaluate(
      firefox.client,
      settingsPage,
      `browser.storage.local.set({ settings: ${JSON.stringify(settings)} })`,
    );

    const page = await firefox.newTab();
    const url = fixtures!.url("/api/cart.html");
    await navigate(firefox.client, page, url);
    await click(firefox.client, page, "#add");
    await waitFor(async () => carts.length === 1, { message: "the page's own add-to-cart call" });
    const tabId = await firefoxTabId(firefox.client, settingsPage, url);
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
    await waitForText(firefox.client, sidebar, "#tab-title", "Lamp shop");
    await click(firefox.client, sidebar, `input[name="mode"][value="act"] + span`);
    await fill(firefox.client, sidebar, "#input", "/allow-api add 2 lamps to the cart");
    await pressEnter(firefox.client, sidebar);
    await waitForText(firefox.client, sidebar, "#live .prompt", "Approve this plan?", 60_000);
    await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(1)");
    await waitFor(
      async () => {
        if ((await count(firefox.client, sidebar, "#live .prompt")) > 0) {
          await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(2)").catch(() => undefined);
        }
        return carts.length === 2;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: "the repeated API call" },
    );
    expect(carts[1]).toEqual({ body: { item: "Lamp", qty: 2 }, authorization: undefined });
    await waitForText(firefox.client, sidebar, "#transcript", "Added 2 lamps through the shop's API.");

    // Off again: the badge goes.
    await click(firefox.client, traces, "#observer");
    await waitFor(
      async () =>
        (await evaluate<string>(firefox.client, traces, "browser.browserAction.getBadgeText({})", {
          awaitPromise: true,
        })) === "",
      { message: "the API badge removed" },
    );
  }, 180_000);
  it("recipient guard: a planned sidebar run sends to the named recipient and not to another conversation", async () => {
    const route = `${new URL(fixtures!.origin).host} /chat Test chat`;
    await evaluate(
      firefox.client,
      settingsPage,
      `browser.storage.local.set({ messagingRoutes: ${JSON.stringify(route)} }).then(() => true)`,
      { awaitPromise: true },
    );
    const plan = {
      toolCalls: [
        {
          name: "submit_plan",
          arguments: {
            goal: "Say hi",
            steps: [{ action: "type and send" }],
            message_recipient: "Alice Martin",
          },
        },
      ],
    };
    const typeAndSend = (req: Parameters<typeof lastToolResultText>[0]) => {
      const tree = lastToolResultText(req);
      return {
        toolCalls: [
          { name: "type_ax", arguments: { ref_id: findRef(tree, "textbox", "Message"), value: "Hi Alice" } },
          { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Send") } },
        ],
      };
    };
    await llm?.close();
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        // Bob's conversation is open: the send is refused and the model is told why.
        plan,
        { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
        typeAndSend,
        (req) => {
          expect(lastToolResultText(req)).toMatch(
            /Recipient guard: the open conversation is with \\?"Bob Stone\\?", not \\?"Alice Martin\\?"/,
          );
          return {
            toolCalls: [{ name: "done", arguments: { summary: "Not sent: Bob's conversation is open." } }],
          };
        },
        // Alice's conversation is open: the same send goes through.
        plan,
        { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
        typeAndSend,
        { toolCalls: [{ name: "done", arguments: { summary: "Sent Hi to Alice." } }] },
      ],
    });
    const settings = {
      providers: [scriptedProviderConfig(llm.baseUrl)],
      activeProviderId: "scripted",
      maxSteps: 20,
      planBeforeAct: true,
      verbose: "normal",
    };
    await evaluate(
      firefox.client,
      settingsPage,
      `browser.storage.local.set({ settings: ${JSON.stringify(settings)} })`,
    );

    const runOn = async (query: string, expected: string) => {
      const page = await firefox.newTab();
      const url = fixtures!.url(`/chat/chat.html${query}`);
      await navigate(firefox.client, page, url);
      const tabId = await firefoxTabId(firefox.client, settingsPage, url);
      const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
      await waitForText(firefox.client, sidebar, "#tab-title", "Chat");
      await click(firefox.client, sidebar, `input[name="mode"][value="act"] + span`);
      await fill(firefox.client, sidebar, "#input", "send Hi Alice to Alice Martin");
      await pressEnter(firefox.client, sidebar);
      await waitForText(firefox.client, sidebar, "#live .prompt", "Approve this plan?", 60_000);
      await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(1)");
      await waitFor(
        async () => {
          if ((await count(firefox.client, sidebar, "#live .prompt")) > 0) {
            await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(2)").catch(
              () => undefined,
            );
          }
          return (await text(firefox.client, sidebar, "#transcript")).includes(expected);
        },
        { timeoutMs: 60_000, intervalMs: 200, message: expected },
      );
    };
    await runOn("?peer=bob", "Not sent: Bob's conversation is open.");
    expect(messages).toEqual([]);
    await runOn("?peer=alice", "Sent Hi to Alice.");
    await waitFor(async () => messages.length === 1, { message: "the message to Alice" });
    expect(messages).toEqual([{ to: "Alice Martin", text: "Hi Alice" }]);
  }, 240_000);
});
