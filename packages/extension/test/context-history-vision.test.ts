/**
 * Issue 15 in real Firefox, in the sidebar at 360 px, with scripted models over real HTTP:
 * - "Ask WebBrain about this": the menu item exists in Firefox, and its click handler (called
 *   from an add-on page with a real tab and Firefox's click-data shape, since WebDriver cannot
 *   open the native context menu) puts a selection, a link and an image into the Ask input.
 * - Browser history: pages the browser visited come back from search_history once the person
 *   allows the optional `history` permission in the sidebar; a refusal is a clear answer.
 * - Vision: a screenshot reaches the model after an action, verify_form sends the viewport, and
 *   only the newest 4 images stay in the request.
 */
import { evaluate, navigate } from "@webbrain/bidi";
import type { Mode, Tier } from "@webbrain/protocol";
import {
  type FixtureServer,
  findRef,
  imageCount,
  lastToolResultText,
  type RecordedRequest,
  type ScriptedLlm,
  type ScriptStep,
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
  pressEnter,
  screenshot,
  scriptedProviderConfig,
  setViewport,
  text,
  waitForText,
} from "./addon-harness.js";

/** A 2x2 red PNG. */
const RED_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==",
  "base64",
);

const CONTEXT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harbour guide</title></head>
<body><h1>Harbour guide</h1>
<p id="quote">The harbour light was rebuilt in 1902 after the storm.</p>
<p><a id="tides" href="/ctx/tides.html">Tide tables for May</a></p>
<p><img id="flag" src="/ctx/red.png" alt="The red harbour flag" width="40" height="40"></p>
</body></html>`;

const page = (title: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1></body></html>`;

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
const llms: ScriptedLlm[] = [];

beforeAll(async () => {
  addon = await buildAddon();
  const html = (body: string) => (_req: unknown, res: import("node:http").ServerResponse) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
  };
  fixtures = await startFixtureServer({
    routes: {
      "/ctx/page.html": html(CONTEXT_PAGE),
      "/ctx/tides.html": html(page("Tide tables")),
      "/ctx/red.png": (_req, res) => {
        res.writeHead(200, { "content-type": "image/png" }).end(RED_PNG);
      },
      "/history/keeper.html": html(page("Lighthouse keeper notes")),
      "/history/ferry.html": html(page("Ferry timetable")),
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

async function useProvider(
  script: ScriptStep[],
  overrides: { vision?: boolean; tier?: Exclude<Tier, "compact"> } = {},
) {
  const llm = await startScriptedLlm({ dialect: "openai-chat", script });
  llms.push(llm);
  const settings = {
    providers: [scriptedProviderConfig(llm.baseUrl, { vision: false, ...overrides })],
    activeProviderId: "scripted",
    maxSteps: 20,
  };
  await evaluate(
    firefox.client,
    settingsPage,
    `browser.storage.local.set({ settings: ${JSON.stringify(settings)} })`,
  );
  return llm;
}

let pageCounter = 0;

async function openPage(path: string): Promise<{ context: string; tabId: number; url: string }> {
  const context = await firefox.newTab();
  const url = `${fixtures!.url(path)}?case=${++pageCounter}`;
  await navigate(firefox.client, context, url);
  return { context, tabId: await firefoxTabId(firefox.client, settingsPage, url), url };
}

async function openSidebar(tabId: number, title: string): Promise<string> {
  const context = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
  await setViewport(firefox.client, context, 360, 720);
  await waitForText(firefox.client, context, "#tab-title", title);
  return context;
}

async function send(sidebar: string, mode: Exclude<Mode, "dev">, message: string): Promise<void> {
  await click(firefox.client, sidebar, `input[name="mode"][value="${mode}"] + span`);
  await fill(firefox.client, sidebar, "#input", message);
  await pressEnter(firefox.client, sidebar);
}

/**
 * Calls the background page's menus.onClicked handler with the click data Firefox would pass
 * (OnClickData's fields) and the real tabs.Tab of the page; answers the attachment's name.
 */
function clickAskAbout(tabId: number, info: Record<string, unknown>): Promise<string | null> {
  const data = {
    menuItemId: "webbrain-ask-about",
    editable: false,
    modifiers: [],
    button: 0,
    frameId: 0,
    ...info,
  };
  return evaluate<string | null>(
    firefox.client,
    settingsPage,
    `browser.tabs.get(${tabId}).then((tab) =>
      browser.extension.getBackgroundPage().webbrainAskAbout(${JSON.stringify(data)}, tab))
      .then((attachment) => attachment ? attachment.name : null)`,
    { awaitPromise: true },
  );
}

describe("context menu: Ask WebBrain about this", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
  });

  it("the menu item exists in Firefox for selections, links and images", async () => {
    // Firefox has no API to list menu items: update() resolves only for an item that exists.
    const exists = (id: string) =>
      evaluate<boolean>(
        firefox.client,
        settingsPage,
        `browser.menus.update(${JSON.stringify(id)}, { contexts: ["selection", "link", "image"] }).then(() => true, () => false)`,
        { awaitPromise: true },
      );
    expect(await exists("webbrain-ask-about")).toBe(true);
    expect(await exists("no-such-item")).toBe(false);
  });

  it("attaches a selection, a link and an image (URL and alt text) to the Ask input", async () => {
    const llm = await useProvider([{ text: "The flag is red; the tides page lists May." }]);
    const tab = await openPage("/ctx/page.html");
    const sidebar = await openSidebar(tab.tabId, "Harbour guide");
    const pageUrl = tab.url;
    expect(
      await clickAskAbout(tab.tabId, {
        selectionText: "The harbour light was rebuilt in 1902 after the storm.",
        pageUrl,
      }),
    ).toMatch(/^Selection: /);
    await waitForText(firefox.client, sidebar, "#attachments", "Selection:");
    await waitForText(firefox.client, sidebar, "#status", "Attached from the page");
    await screenshot(firefox.client, sidebar, "context-1-selection-attached");
    await clickAskAbout(tab.tabId, {
      linkUrl: fixtures!.url("/ctx/tides.html"),
      linkText: "Tide tables for May",
      pageUrl,
    });
    await clickAskAbout(tab.tabId, { srcUrl: fixtures!.url("/ctx/red.png"), mediaType: "image", pageUrl });
    await waitForText(firefox.client, sidebar, "#attachments", "Image: red.png");
    expect(await text(firefox.client, sidebar, "#attachments")).toContain("Link: Tide tables for May");
    expect(
      await evaluate<boolean>(
        firefox.client,
        sidebar,
        `document.querySelector('input[name="mode"][value="ask"]').checked`,
      ),
    ).toBe(true);
    await screenshot(firefox.client, sidebar, "context-2-three-attached");
    await send(sidebar, "ask", "What are these?");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "The flag is red");
    const sent = userTexts(llm.requests.at(-1)!).join("\n");
    expect(sent).toContain("rebuilt in 1902");
    expect(sent).toContain(`Link URL: ${fixtures!.url("/ctx/tides.html")}`);
    expect(sent).toContain("Link text: Tide tables for May");
    expect(sent).toContain(`Image URL: ${fixtures!.url("/ctx/red.png")}`);
    // Read from the page itself (the handler looks the image up in the tab).
    expect(sent).toContain("Alt text: The red harbour flag");
    expect(imageCount(llm.requests.at(-1)!)).toBe(0);
    await screenshot(firefox.client, sidebar, "context-3-sent");
  });

  it("attaches the image itself for a vision model", async () => {
    const llm = await useProvider([{ text: "A red square." }], { vision: true });
    const tab = await openPage("/ctx/page.html");
    const sidebar = await openSidebar(tab.tabId, "Harbour guide");
    await clickAskAbout(tab.tabId, {
      srcUrl: fixtures!.url("/ctx/red.png"),
      mediaType: "image",
      pageUrl: tab.url,
    });
    await waitForText(firefox.client, sidebar, "#attachments", "🖼 red.png");
    await screenshot(firefox.client, sidebar, "context-4-image-for-vision");
    await send(sidebar, "ask", "What colour?");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "A red square.");
    // The task's screenshot of the tab, and the attached image.
    expect(imageCount(llm.requests.at(-1)!)).toBe(2);
    expect(JSON.stringify(llm.requests.at(-1)!.body)).toContain(RED_PNG.toString("base64"));
  });
});

describe("browser history", () => {
  const search = { toolCalls: [{ name: "search_history", arguments: { text: "keeper", days: 1 } }] };

  it("a refusal is a clear answer the model reads", async () => {
    const llm = await useProvider([
      search,
      (request) => ({ text: `Refused: ${lastToolResultText(request).slice(0, 200)}` }),
    ]);
    const tab = await openPage("/history/ferry.html");
    const sidebar = await openSidebar(tab.tabId, "Ferry timetable");
    await send(sidebar, "ask", "Which keeper notes did I read?");
    await waitForText(firefox.client, sidebar, "#live .prompt", "browsing history");
    await screenshot(firefox.client, sidebar, "history-1-permission-prompt");
    await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(2)");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Refused");
    expect(lastToolResultText(llm.requests.at(-1)!)).toContain(
      "has not allowed WebBrain to read the browsing history",
    );
  });

  it("after Allow, search_history answers the pages this browser visited", async () => {
    const visited = await openPage("/history/keeper.html");
    const llm = await useProvider([
      search,
      (request: RecordedRequest) => {
        const result = lastToolResultText(request);
        if (!result.includes("Lighthouse keeper notes"))
          throw new Error(`history did not list the visited page: ${result.slice(0, 400)}`);
        return { text: "You read “Lighthouse keeper notes”." };
      },
    ]);
    const tab = await openPage("/history/ferry.html");
    const sidebar = await openSidebar(tab.tabId, "Ferry timetable");
    await send(sidebar, "ask", "Which keeper notes did I read?");
    await waitForText(firefox.client, sidebar, "#live .prompt", "browsing history");
    // Allow: the sidebar's click asks Firefox for the permission (granted without a doorhanger
    // here, ADDON_PREFS), then the run reads the history.
    await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(1)");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Lighthouse keeper notes");
    const result = lastToolResultText(llm.requests.at(-1)!);
    expect(result).toContain("[search_history ok]");
    expect(result).toContain(visited.url);
    expect(result).not.toContain("Ferry timetable");
    expect(
      await evaluate<boolean>(
        firefox.client,
        settingsPage,
        `browser.permissions.contains({ permissions: ["history"] })`,
        { awaitPromise: true },
      ),
    ).toBe(true);
    await screenshot(firefox.client, sidebar, "history-2-answered");
  });
});

describe("vision", () => {
  it("the setting is on by default and shown in Settings", async () => {
    await setViewport(firefox.client, settingsPage, 360, 900);
    await firefox.client.send("browsingContext.reload", { context: settingsPage, wait: "complete" });
    const shown = await waitFor(
      () =>
        evaluate<string | false>(
          firefox.client,
          settingsPage,
          `(() => {
            const box = document.getElementById("screenshot-after-actions");
            if (!box) return false;
            box.scrollIntoView({ block: "center" });
            return box.checked ? document.querySelector('label[for="screenshot-after-actions"]').textContent : false;
          })()`,
        ),
      { message: "the screenshot-after-actions box is missing or off" },
    );
    expect(shown).toBe("Vision models: send a screenshot after each action");
    await screenshot(firefox.client, settingsPage, "vision-0-settings-toggle");
  });

  it("after an action a screenshot reaches the model; verify_form sends the viewport; only 4 images stay", {
    timeout: 120_000,
  }, async () => {
    // Refs are read once from the tree the model got; later steps reuse them.
    const refs = new Map<string, number>();
    const typeInto =
      (name: string, value: string): ScriptStep =>
      (request) => {
        if (refs.size === 0) {
          const tree = lastToolResultText(request);
          for (const field of ["Full name", "Email"]) refs.set(field, findRef(tree, "textbox", field));
        }
        return { toolCalls: [{ name: "type_ax", arguments: { ref_id: refs.get(name), value } }] };
      };
    const llm = await useProvider(
      [
        { toolCalls: [{ name: "get_accessibility_tree", arguments: { filter: "interactive" } }] },
        typeInto("Full name", "Ada"),
        typeInto("Email", "ada@example.org"),
        typeInto("Full name", "Ada Lovelace"),
        typeInto("Email", "ada@lovelace.org"),
        { toolCalls: [{ name: "verify_form", arguments: { selector: "#signup" } }] },
        { text: "The form is filled in." },
      ],
      { vision: true, tier: "full" },
    );
    const tab = await openPage("/extension/signup.html");
    const sidebar = await openSidebar(tab.tabId, "Newsletter signup");
    await send(sidebar, "act", "Fill in the form for Ada.");
    await waitFor(
      async () => {
        if ((await count(firefox.client, sidebar, "#live .prompt")) > 0)
          await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(2)").catch(() => undefined);
        return (await text(firefox.client, sidebar, "#transcript .msg.assistant")).includes("filled in");
      },
      {
        timeoutMs: 60_000,
        intervalMs: 100,
        message: "the vision run did not finish",
      },
    ).catch(async (error: unknown) => {
      const shown = await text(firefox.client, sidebar, "#chat");
      throw new Error(`${String(error)}; ${llm.requests.length} requests; sidebar: ${shown.slice(-800)}`);
    });
    const requests = llm.requests;
    // requests[0]: the task with its screenshot; [1]: the tree; [2]: after the first type_ax.
    expect(imageCount(requests[0]!)).toBe(1);
    expect(imageCount(requests[1]!)).toBe(1);
    expect(imageCount(requests[2]!)).toBe(2);
    expect(JSON.stringify(requests[2]!.body)).toContain("[viewport after type_ax]");
    const last = requests.at(-1)!;
    const body = JSON.stringify(last.body);
    expect(body).toContain("[viewport after verify_form]");
    expect(body).toContain("ada@lovelace.org");
    // 1 task screenshot + 4 after type_ax + 1 from verify_form = 6 taken, the newest 4 sent.
    expect(imageCount(last)).toBe(4);
    expect(body.match(/older screenshot removed/g)?.length).toBe(2);
    await screenshot(firefox.client, sidebar, "vision-1-run-with-screenshots");
  });
});
