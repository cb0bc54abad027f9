/**
 * The sidebar in real Firefox, as a person uses it: the sidebar document opened in a tab for
 * one page (`sidebar.html?tab=<id>`), questions typed with trusted keys, answers from scripted
 * LLM servers over real HTTP. Covers Ask, an Act task on a form, closing and reopening the
 * sidebar mid-run, Stop and Continue, a provider that is down, and page text that tries to
 * instruct the agent.
 */
import { evaluate, navigate } from "@webbrain/bidi";
import type { Mode } from "@webbrain/protocol";
import {
  type FixtureServer,
  findRef,
  imageCount,
  lastToolResultText,
  type ScriptedLlm,
  type ScriptStep,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  toolResultTexts,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_ORIGIN,
  ADDON_PREFS,
  buildAddon,
  click,
  contexts,
  count,
  fill,
  firefoxTabId,
  installAndOpenSettings,
  openAddonPage,
  pressEnter,
  screenshot,
  scriptedProviderConfig,
  setViewport,
  shiftClick,
  text,
  waitForContext,
  waitForText,
} from "./addon-harness.js";

const SIDEBAR_WIDTH_PX = 360;
const SIDEBAR_HEIGHT_PX = 760;

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
const stealHits: string[] = [];
const llms: ScriptedLlm[] = [];

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer({
    routes: {
      "/extension/whoami": (req, res) => {
        res
          .writeHead(200, { "content-type": "text/plain" })
          .end(`cookie header: ${req.headers.cookie ?? "(none)"}`);
      },
      "/extension/steal": (req, res) => {
        stealHits.push(req.url ?? "");
        res.writeHead(200, { "content-type": "text/plain" }).end("stolen");
      },
    },
  });
});
afterAll(async () => {
  await Promise.all(llms.map((llm) => llm.close()));
  await fixtures?.close();
  await addon?.remove();
});

const firefox = setupFirefox({ prefs: ADDON_PREFS });
let settingsPage = "";
const openedAddonTabs: string[] = [];

afterEach(async () => {
  for (const context of openedAddonTabs.splice(0)) {
    await firefox.client.send("browsingContext.close", { context }).catch(() => undefined);
  }
});

async function scriptedProvider(script: ScriptStep[], eventDelayMs = 0): Promise<ScriptedLlm> {
  const llm = await startScriptedLlm({ dialect: "openai-chat", script, eventDelayMs });
  llms.push(llm);
  await useProviderAt(llm.baseUrl);
  return llm;
}

async function useProviderAt(
  baseUrl: string,
  vision = false,
  overrides: Parameters<typeof scriptedProviderConfig>[1] = {},
): Promise<void> {
  const settings = {
    providers: [scriptedProviderConfig(baseUrl, { vision, ...overrides })],
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
}

let pageCounter = 0;

/** A fixture page in its own tab: BiDi context and Firefox tab id (the URL is unique per call). */
async function openPage(path: string): Promise<{ context: string; tabId: number; url: string }> {
  const context = await firefox.newTab();
  const url = `${fixtures!.url(path)}?case=${++pageCounter}`;
  await navigate(firefox.client, context, url);
  return { context, tabId: await firefoxTabId(firefox.client, settingsPage, url), url };
}

async function openSidebar(tabId: number, title: string): Promise<string> {
  const context = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
  openedAddonTabs.push(context);
  await setViewport(firefox.client, context, SIDEBAR_WIDTH_PX, SIDEBAR_HEIGHT_PX);
  await waitForText(firefox.client, context, "#tab-title", title);
  return context;
}

async function send(sidebar: string, mode: Mode, message: string): Promise<void> {
  await click(firefox.client, sidebar, `input[name="mode"][value="${mode}"] + span`);
  await fill(firefox.client, sidebar, "#input", message);
  await pressEnter(firefox.client, sidebar);
}

/** Answer "Always allow" to any permission prompt until `done` says the run got where it should. */
async function allowUntil(sidebar: string, done: () => Promise<boolean>, what: string): Promise<void> {
  await waitFor(
    async () => {
      if ((await count(firefox.client, sidebar, "#live .prompt")) > 0) {
        await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(2)").catch(() => undefined);
      }
      return done();
    },
    { timeoutMs: 30_000, intervalMs: 100, message: what },
  );
}

async function waitForRunEnd(sidebar: string): Promise<void> {
  await waitFor(
    () =>
      evaluate<boolean>(
        firefox.client,
        sidebar,
        "document.getElementById('stop').hidden && !document.getElementById('send').disabled",
      ),
    { timeoutMs: 30_000, message: "the run did not end" },
  );
}

describe("sidebar", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
  });

  it("before any provider is set up, says where to add one", async () => {
    const page = await openPage("/extension/article.html");
    const sidebar = await openSidebar(page.tabId, "Lighthouse of Alexandria");
    expect(await text(firefox.client, sidebar, "#provider option")).toBe("No provider: open Settings");
    await waitForText(firefox.client, sidebar, "#setup-hint:not([hidden])", "needs a model first");
    await send(sidebar, "ask", "Hello?");
    await waitForText(firefox.client, sidebar, "#status", "No model provider is set up yet. Open Settings");
    // Nothing was sent, so the message stays in the box for after the setup.
    expect(await evaluate(firefox.client, sidebar, "document.getElementById('input').value")).toBe("Hello?");
    await screenshot(firefox.client, sidebar, "sidebar-0-no-provider");
  });

  it("without ?tab= it follows the active tab of its window", async () => {
    const sidebarUrl = `${ADDON_ORIGIN}/sidebar.html`;
    const article = fixtures!.url("/extension/article.html");
    const signup = fixtures!.url("/extension/signup.html");
    // A window of its own, so "the active tab" is under this test's control.
    const windowId = await evaluate<number>(
      firefox.client,
      settingsPage,
      `browser.windows.create({ url: ${JSON.stringify(sidebarUrl)} }).then((w) => w.id)`,
    );
    const sidebar = await waitForContext(firefox.client, (url) => url === sidebarUrl, "the unpinned sidebar");
    openedAddonTabs.push(sidebar);
    const open = (url: string) =>
      evaluate<number>(
        firefox.client,
        settingsPage,
        `browser.tabs.create({ windowId: ${windowId}, url: ${JSON.stringify(url)} }).then((t) => t.id)`,
      );
    try {
      const articleTab = await open(article);
      await waitForText(firefox.client, sidebar, "#tab-title", "Lighthouse of Alexandria");
      await open(signup);
      await waitForText(firefox.client, sidebar, "#tab-title", "Newsletter signup");
      const activate = `browser.tabs.update(${articleTab}, { active: true }).then(() => true)`;
      await evaluate(firefox.client, settingsPage, activate);
      await waitForText(firefox.client, sidebar, "#tab-title", "Lighthouse of Alexandria");
    } finally {
      // The window's tabs must not outlive this test: later tests find tabs by URL.
      await evaluate(firefox.client, settingsPage, `browser.windows.remove(${windowId}).then(() => true)`);
      openedAddonTabs.splice(openedAddonTabs.indexOf(sidebar), 1);
    }
  });

  it("shows a clear message when the provider is down", async () => {
    await useProviderAt("http://127.0.0.1:9/v1");
    const page = await openPage("/extension/article.html");
    const sidebar = await openSidebar(page.tabId, "Lighthouse of Alexandria");
    await screenshot(firefox.client, sidebar, "sidebar-1-empty");
    await send(sidebar, "ask", "When was it built?");
    const error = await waitForText(firefox.client, sidebar, "#transcript .error", "Could not reach");
    expect(error).toContain("127.0.0.1:9");
    await waitForRunEnd(sidebar);
    expect(await text(firefox.client, sidebar, "#transcript .msg.user")).toContain("When was it built?");
    await screenshot(firefox.client, sidebar, "sidebar-2-provider-down");
  });

  it("answers in Ask mode with sanitized Markdown, a tool card and copyable code", async () => {
    const llm = await scriptedProvider([
      { toolCalls: [{ name: "read_page", arguments: {} }] },
      (request) => {
        const page = lastToolResultText(request);
        if (!page.includes("Pharos"))
          throw new Error(`read_page did not return the article: ${page.slice(0, 300)}`);
        return {
          text: [
            "## Answer",
            "",
            "The lighthouse was built on **Pharos** between 280 and 247 BC.",
            "",
            "- about 100 metres tall",
            "- one of the Seven Wonders",
            "",
            "```js",
            "console.log('pharos');",
            `const longLine = "${"x".repeat(160)}";`,
            "```",
            "",
            `Source: https://example.org/${"very-long-path-segment/".repeat(8)}lighthouse`,
            "",
            "| Fact | Value |",
            "| --- | --- |",
            "| Height | about 100 m |",
            "",
            '<img src="x" onerror="document.title=\'hacked\'"> <script>document.title="hacked"</script>',
          ].join("\n"),
        };
      },
    ]);
    const page = await openPage("/extension/article.html");
    const sidebar = await openSidebar(page.tabId, "Lighthouse of Alexandria");
    await send(sidebar, "ask", "Where and when was it built?");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant h2", "Answer");
    await waitForRunEnd(sidebar);
    expect(await text(firefox.client, sidebar, "#transcript .msg.assistant strong")).toBe("Pharos");
    expect(await text(firefox.client, sidebar, "#transcript .msg.assistant pre code")).toContain(
      "console.log('pharos');",
    );
    expect(await count(firefox.client, sidebar, "#transcript pre .copy-code")).toBe(1);
    // The model's HTML is sanitized: no handler attribute, no script, nothing ran.
    expect(
      await count(firefox.client, sidebar, "#transcript [onerror], #transcript script, #transcript img"),
    ).toBe(0);
    expect(await evaluate(firefox.client, sidebar, "document.title")).toBe("WebBrain");
    expect(await text(firefox.client, sidebar, "#transcript .tool .tool-name")).toBe("read_page");
    expect(await count(firefox.client, sidebar, "#transcript .tool.ok")).toBe(1);
    // The page text reached the model wrapped as untrusted data.
    expect(lastToolResultText(llm.requests[1]!)).toMatch(/<untrusted source="[^"]*">/);
    await screenshot(firefox.client, sidebar, "sidebar-3-ask-answer");
    // Long code, a long URL and a table must not make the narrowest sidebar scroll sideways.
    await setViewport(firefox.client, sidebar, 280, SIDEBAR_HEIGHT_PX);
    const overflow = await evaluate<number>(
      firefox.client,
      sidebar,
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    expect(overflow).toBe(0);
    await screenshot(firefox.client, sidebar, "sidebar-3b-ask-answer-280px");
  });

  it("treats page text that gives orders as data: Ask mode refuses the navigation a fooled model asks for", async () => {
    const page = await openPage("/extension/article.html");
    await scriptedProvider([
      { toolCalls: [{ name: "read_page", arguments: {} }] },
      // A model that obeys the page's "SYSTEM NOTICE" and tries to navigate away.
      { toolCalls: [{ name: "navigate", arguments: { url: fixtures!.url("/extension/steal?cookie=1") } }] },
      { text: "The page contains an instruction aimed at AI agents; I ignored it. It was built on Pharos." },
    ]);
    const sidebar = await openSidebar(page.tabId, "Lighthouse of Alexandria");
    await send(sidebar, "ask", "Summarize this page.");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "I ignored it");
    await waitForRunEnd(sidebar);
    expect(await count(firefox.client, sidebar, "#transcript .tool.failed")).toBe(1);
    expect(stealHits).toEqual([]);
    expect(await evaluate(firefox.client, page.context, "location.href")).toBe(page.url);
  });

  it("runs an Act task that fills and submits a form, asking permission in the panel", async () => {
    let tree = "";
    await scriptedProvider([
      { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
      (request) => {
        tree = lastToolResultText(request);
        const name = findRef(tree, "textbox", "Full name");
        const email = findRef(tree, "textbox", "Email");
        return {
          text: "Filling in the form.",
          toolCalls: [
            { name: "type_ax", arguments: { ref_id: name, value: "Ada Lovelace" } },
            { name: "type_ax", arguments: { ref_id: email, value: "ada@example.com" } },
          ],
        };
      },
      () => ({
        toolCalls: [{ name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Sign up") } }],
      }),
      {
        toolCalls: [
          { name: "done", arguments: { summary: "Signed up **Ada Lovelace** for the newsletter." } },
        ],
      },
    ]);
    const page = await openPage("/extension/signup.html");
    const first = await openSidebar(page.tabId, "Newsletter signup");
    await send(first, "act", "Sign me up as Ada Lovelace, ada@example.com");
    await waitForText(firefox.client, first, "#live .prompt", "Allow");
    await screenshot(firefox.client, first, "sidebar-4-permission-prompt");
    // The run waits in the background while the sidebar is closed; reopened, the question is back.
    await firefox.client.send("browsingContext.close", { context: first });
    openedAddonTabs.splice(openedAddonTabs.indexOf(first), 1);
    const sidebar = await openSidebar(page.tabId, "Newsletter signup");
    await waitForText(firefox.client, sidebar, "#live .prompt", "Allow interact");
    expect(await count(firefox.client, sidebar, "#live .tool.running")).toBe(1);
    // The reopened panel shows the live run's mode, not the default Ask.
    expect(
      await evaluate(firefox.client, sidebar, "document.querySelector('input[name=\"mode\"]:checked').value"),
    ).toBe("act");
    await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(2)"); // Always allow
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Signed up Ada Lovelace");
    await waitForRunEnd(sidebar);
    expect(await text(firefox.client, page.context, "#result")).toBe(
      "Thanks, Ada Lovelace! We will write to ada@example.com.",
    );
    const tools = await text(firefox.client, sidebar, "#transcript .tool .tool-name");
    expect(tools.split("\n")).toEqual(["get_accessibility_tree", "type_ax", "type_ax", "click_ax", "done"]);
    expect(await text(firefox.client, sidebar, "#transcript .tool .tool-summary")).toContain(
      'value "Ada Lovelace"',
    );
    await screenshot(firefox.client, sidebar, "sidebar-5-act-done");
  });

  it("Plan before Act asks for approval in the panel; verbose cards expand; deep verbose dumps payloads; /allow-api shows its badge", async () => {
    let tree = "";
    const llm = await scriptedProvider([
      {
        toolCalls: [
          {
            name: "submit_plan",
            arguments: {
              goal: "Sign up Grace Hopper",
              steps: [{ action: "type the name and email" }, { action: "press Sign up" }],
              risks: ["subscribes an address to a newsletter"],
            },
          },
        ],
      },
      { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
      (request) => {
        tree = lastToolResultText(request);
        return {
          toolCalls: [
            {
              name: "type_ax",
              arguments: { ref_id: findRef(tree, "textbox", "Full name"), value: "Grace Hopper" },
            },
            {
              name: "type_ax",
              arguments: { ref_id: findRef(tree, "textbox", "Email"), value: "grace@example.com" },
            },
            { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Sign up") } },
          ],
        };
      },
      { toolCalls: [{ name: "done", arguments: { summary: "Grace Hopper is signed up." } }] },
    ]);
    await evaluate(
      firefox.client,
      settingsPage,
      "browser.storage.local.get('settings').then(({ settings }) => browser.storage.local.set({ settings: { ...settings, planBeforeAct: true, verbose: 'deep' } }))",
    );
    const page = await openPage("/extension/signup.html");
    const sidebar = await openSidebar(page.tabId, "Newsletter signup");
    await send(sidebar, "act", "Sign up Grace Hopper, grace@example.com");
    const plan = await waitForText(firefox.client, sidebar, "#live .prompt", "Approve this plan?");
    expect(plan).toContain("Goal: Sign up Grace Hopper");
    expect(plan).toContain("2. press Sign up");
    expect(plan).toContain("subscribes an address");
    await screenshot(firefox.client, sidebar, "sidebar-8-plan-approval");
    await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(1)");
    // Permission for this origin may already be "always"; answer it if it is asked.
    await waitFor(
      async () => {
        if ((await count(firefox.client, sidebar, "#live .prompt")) > 0) {
          await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(2)").catch(() => undefined);
        }
        return (await text(firefox.client, sidebar, "#transcript .msg.assistant")).includes(
          "Grace Hopper is signed up.",
        );
      },
      { timeoutMs: 30_000, intervalMs: 100, message: "the planned task did not finish" },
    );
    await waitForRunEnd(sidebar);
    expect(await text(firefox.client, page.context, "#result")).toContain("Thanks, Grace Hopper!");
    expect(await text(firefox.client, sidebar, "#transcript .notice")).toContain("Plan approved.");
    expect(llm.requests).toHaveLength(4);

    // Verbose: a card opens to show the arguments and the result the model saw.
    await click(firefox.client, sidebar, "#transcript li:has(details.tool) summary");
    await waitForText(firefox.client, sidebar, "#transcript details[open] .tool-detail", "arguments:");
    await screenshot(firefox.client, sidebar, "sidebar-9-verbose-card");

    // Deep verbose: Shift+click writes the recorded model payloads to the console.
    await shiftClick(firefox.client, sidebar, "#transcript .msg.user");
    const status = await waitForText(firefox.client, sidebar, "#status", "model payloads");
    expect(Number(/Wrote (\d+) model payloads/.exec(status)?.[1])).toBeGreaterThanOrEqual(4);

    await send(sidebar, "act", "/allow-api");
    await waitFor(() =>
      evaluate<boolean>(firefox.client, sidebar, "!document.getElementById('allow-api-badge').hidden"),
    );
    expect(await text(firefox.client, sidebar, "#transcript .msg.assistant")).toContain("API mutations");
    await screenshot(firefox.client, sidebar, "sidebar-10-allow-api");
    await evaluate(
      firefox.client,
      settingsPage,
      "browser.storage.local.get('settings').then(({ settings }) => browser.storage.local.set({ settings: { ...settings, planBeforeAct: false, verbose: 'normal' } }))",
    );
  });

  it("sees the run tab while it is in the background, fetches with the user's cookies, researches in a tab it closes", async () => {
    const page = await openPage("/extension/article.html");
    await evaluate(firefox.client, page.context, "document.cookie = 'session=abc123; path=/'");
    const llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        (request) => {
          if (imageCount(request) < 1)
            throw new Error("the first message carries no screenshot of the run tab");
          return {
            toolCalls: [
              { name: "fetch_url", arguments: { url: fixtures!.url("/extension/whoami") } },
              { name: "research_url", arguments: { url: fixtures!.url("/extension/signup.html") } },
            ],
          };
        },
        { text: "Fetched and researched." },
      ],
    });
    llms.push(llm);
    await useProviderAt(llm.baseUrl, true);
    const sidebar = await openSidebar(page.tabId, "Lighthouse of Alexandria");
    const tabsBefore = (await contexts(firefox.client)).length;
    // The URLs are the user's own (Ask fetches only those and the page's links, with cookies
    // only for the user's sites: security-local-files.test.ts).
    await send(
      sidebar,
      "ask",
      `What does the server know about me? See ${fixtures!.url("/extension/whoami")} and ${fixtures!.url("/extension/signup.html")}`,
    );
    await allowUntil(
      sidebar,
      async () =>
        (await text(firefox.client, sidebar, "#transcript .msg.assistant")).includes(
          "Fetched and researched.",
        ),
      "the network task did not finish",
    );
    await waitForRunEnd(sidebar);
    const results = toolResultTexts(llm.requests[1]!);
    expect(results[0]).toContain("cookie header: session=abc123");
    expect(results[1]).toContain("Newsletter signup");
    expect(results[1]).toContain("Full name");
    // research_url closed the tab it opened.
    expect((await contexts(firefox.client)).length).toBe(tabsBefore);
    await screenshot(firefox.client, sidebar, "sidebar-11-network-tools");
  });

  it("navigates the run tab in Act mode and waits for the page to load; the header follows", async () => {
    const llm = await scriptedProvider([
      { toolCalls: [{ name: "navigate", arguments: { url: fixtures!.url("/extension/article.html") } }] },
      { toolCalls: [{ name: "done", arguments: { summary: "Opened the lighthouse article." } }] },
    ]);
    const page = await openPage("/extension/signup.html");
    const sidebar = await openSidebar(page.tabId, "Newsletter signup");
    await send(sidebar, "act", "Open the lighthouse article.");
    await allowUntil(
      sidebar,
      async () =>
        (await text(firefox.client, sidebar, "#transcript .msg.assistant")).includes("Opened the lighthouse"),
      "the navigation task did not finish",
    );
    await waitForRunEnd(sidebar);
    expect(await evaluate(firefox.client, page.context, "location.pathname")).toBe("/extension/article.html");
    // The model saw the new page's title in the navigate result.
    expect(lastToolResultText(llm.requests[1]!)).toContain("Lighthouse of Alexandria");
    await waitForText(firefox.client, sidebar, "#tab-title", "Lighthouse of Alexandria");
  });

  it("closing the sidebar mid-run and reopening it restores the transcript and the live run, without duplicates", async () => {
    const reply =
      "Alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar.";
    // Spec 000: only an Ask on the OpenAI Responses route streams live. The stream's end waits
    // until the test has seen the reopened sidebar mid-run.
    let finish = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const llm = await startScriptedLlm({
      dialect: "openai-responses",
      script: [{ text: reply }],
      eventDelayMs: 100,
      finishWhen: finished,
    });
    llms.push(llm);
    await useProviderAt(llm.baseUrl, false, { api: "openai-responses", apiKey: "sk-test" });
    const page = await openPage("/extension/article.html");
    const first = await openSidebar(page.tabId, "Lighthouse of Alexandria");
    await send(first, "ask", "Spell the alphabet.");
    await waitForText(firefox.client, first, "#live .streaming", "Alpha");
    await firefox.client.send("browsingContext.close", { context: first });
    openedAddonTabs.splice(openedAddonTabs.indexOf(first), 1);

    const second = await openSidebar(page.tabId, "Lighthouse of Alexandria");
    // The transcript is back and the run is live: Stop is offered while it streams.
    expect(await text(firefox.client, second, "#transcript .msg.user")).toContain("Spell the alphabet.");
    expect(await evaluate(firefox.client, second, "document.getElementById('stop').hidden")).toBe(false);
    await screenshot(firefox.client, second, "sidebar-6-reopened-mid-run");
    finish();
    await waitForRunEnd(second);
    const shown = await text(firefox.client, second, "#transcript .msg.assistant");
    expect(shown.trim()).toBe(reply);
    expect(await count(firefox.client, second, "#live .streaming")).toBe(0);
  });

  it("pause_for_user shows a take-over card; the person's note reaches the model on Continue; Stop ends a wait", async () => {
    const llm = await scriptedProvider([
      {
        toolCalls: [
          { name: "pause_for_user", arguments: { message: "Log in as Ada, then press Continue." } },
        ],
      },
      (request) => {
        const result = lastToolResultText(request);
        if (!result.includes("I logged in; the code was 4711."))
          throw new Error(`the person's note did not reach the model: ${result.slice(0, 300)}`);
        return { text: "Thanks, I can see you are logged in." };
      },
      { toolCalls: [{ name: "pause_for_user", arguments: { message: "Solve the captcha." } }] },
    ]);
    const page = await openPage("/extension/article.html");
    const sidebar = await openSidebar(page.tabId, "Lighthouse of Alexandria");
    await send(sidebar, "act", "Check my account.");
    const card = await waitForText(
      firefox.client,
      sidebar,
      "#live .prompt",
      "Log in as Ada, then press Continue.",
    );
    expect(card).toBeTruthy();
    // While the person acts, the model is not asked again.
    expect(llm.requests.length).toBe(1);
    await screenshot(firefox.client, sidebar, "sidebar-8-takeover");
    await fill(firefox.client, sidebar, "#live .prompt textarea", "I logged in; the code was 4711.");
    await click(firefox.client, sidebar, "#live .prompt button");
    await waitForText(
      firefox.client,
      sidebar,
      "#transcript .msg.assistant",
      "Thanks, I can see you are logged in.",
    );
    await waitForRunEnd(sidebar);
    expect(llm.requests.length).toBe(2);

    // A second hand-over, ended by Stop: the run stops at once, nothing more is asked.
    await send(sidebar, "act", "Now the captcha.");
    await waitForText(firefox.client, sidebar, "#live .prompt", "Solve the captcha.");
    await click(firefox.client, sidebar, "#stop");
    await waitForText(firefox.client, sidebar, "#transcript .notice", "Stopped");
    await waitForRunEnd(sidebar);
    expect(await count(firefox.client, sidebar, "#live .prompt")).toBe(0);
    expect(llm.requests.length).toBe(3);
  });

  it("Stop ends a run at once, and Continue picks it up", async () => {
    const llm = await scriptedProvider([
      { fail: "hang", midStream: true },
      { text: "Picked up where I left off." },
    ]);
    const page = await openPage("/extension/article.html");
    const sidebar = await openSidebar(page.tabId, "Lighthouse of Alexandria");
    await send(sidebar, "ask", "Tell me everything.");
    await waitFor(() =>
      evaluate<boolean>(firefox.client, sidebar, "!document.getElementById('stop').hidden"),
    );
    // Stop only once the hanging request reached the server: stopped earlier (CI under load did),
    // the hang step is still unused and Continue's request meets it instead of the answer.
    await waitFor(() => llm.requests.length === 1);
    await click(firefox.client, sidebar, "#stop");
    await waitForText(firefox.client, sidebar, "#transcript .notice", "Stopped");
    await waitForRunEnd(sidebar);
    expect(await evaluate(firefox.client, sidebar, "document.getElementById('continue').hidden")).toBe(false);
    await screenshot(firefox.client, sidebar, "sidebar-7-stopped");
    await click(firefox.client, sidebar, "#continue");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Picked up where I left off.");
    await waitForRunEnd(sidebar);

    // Clear forgets the tab's conversation: the panel and session storage are empty again.
    await click(firefox.client, sidebar, "#clear");
    await waitFor(async () => (await count(firefox.client, sidebar, "#transcript li")) === 0);
    expect(await evaluate(firefox.client, sidebar, "document.getElementById('empty').hidden")).toBe(false);
    const keys = await evaluate<string[]>(
      firefox.client,
      sidebar,
      `browser.storage.session.get(null).then((all) => Object.keys(all).filter((k) => k.endsWith(":${page.tabId}")))`,
    );
    expect(keys).toEqual([]);
  });
});
