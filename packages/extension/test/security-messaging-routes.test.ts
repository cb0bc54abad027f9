/**
 * Settings -> Protected messaging routes in the installed add-on, in real Firefox, and the
 * add-on's workflow replay reading them (the recipient guard of spec 000):
 * - the built-in route (Douyin chat) is listed read-only; a person adds the chat fixture's
 *   pages with trusted input, the line is stored as `--messaging-route` takes it and is still
 *   listed after a reload; adding it again is refused with a sentence;
 * - a workflow replayed through the add-on's own workflow port (what the panel's Run button
 *   uses) is refused when its Send step was recorded on the route, and when a crafted file hides
 *   the route in its recorded URLs the replay's guard refuses the Send where the page really is;
 *   nothing reaches the chat's server;
 * - an agent run in Act mode whose model clicks Send there is refused by the run's guard (no
 *   plan named a recipient), and the model is told why;
 * - once the person removes the route, the same crafted replay sends: the guard protects what
 *   the setting says, not a list of its own.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Workflow } from "@webbrain/agent";
import { evaluate } from "@webbrain/bidi";
import {
  type FixtureServer,
  findRef,
  lastToolResultText,
  readJsonBody,
  type ScriptedLlm,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  click,
  count,
  fill,
  installAndOpenSettings,
  replayOnWorkflowPort,
  screenshot,
  scriptedSettings,
  startChatOnPage,
  storeSettings,
  text,
  until,
  waitForText,
} from "./addon-harness.js";

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
let llm: ScriptedLlm | undefined;
const sent: { to: string; text: string }[] = [];

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer({
    routes: {
      "/api/messages": async (req: IncomingMessage, res: ServerResponse) => {
        sent.push(await readJsonBody<{ to: string; text: string }>(req));
        res.writeHead(200);
        res.end("{}");
      },
    },
  });
});
afterAll(async () => {
  await llm?.close();
  await fixtures?.close();
  await addon?.remove();
});
beforeEach(() => {
  sent.length = 0;
});

const firefox = setupFirefox({ prefs: ADDON_PREFS });

/** Type "Hi" and click Send in the open conversation; each step says it ran on `stepUrl`. */
function sayHi(stepUrl: string): Workflow {
  const pane = [{ role: "main", name: "" }];
  return {
    webbrainWorkflow: 2,
    name: "say hi",
    createdAt: "2026-01-01T00:00:00.000Z",
    fromRun: "test",
    startUrl: fixtures!.url("/chat/chat.html"),
    params: [],
    steps: [
      {
        tool: "type_ax",
        args: { value: "Hi" },
        target: { role: "textbox", name: "Message", within: pane },
        url: stepUrl,
      },
      {
        tool: "click_ax",
        args: {},
        target: { role: "button", name: "Send", within: pane },
        url: stepUrl,
      },
    ],
  };
}

interface Answer {
  status: string;
  step?: number;
  reason?: string;
  completed?: number;
}

/** Replays a workflow as the panel's Run button does (every permission answered "once"). */
function replay(context: string, workflow: Workflow): Promise<Answer> {
  return replayOnWorkflowPort(firefox.client, context, workflow);
}

async function storedLines(context: string): Promise<unknown> {
  return evaluate(
    firefox.client,
    context,
    "browser.storage.local.get('messagingRoutes').then((items) => items.messagingRoutes)",
    { awaitPromise: true },
  );
}

/** The page's send is a fetch: give one that did get through the time to arrive. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

describe("Settings -> Protected messaging routes", () => {
  let settings = "";
  const host = () => new URL(fixtures!.origin).host;

  it("lists the built-in route read-only; a person adds a route, it is stored and survives a reload", async () => {
    const client = firefox.client;
    settings = await installAndOpenSettings(client, addon!.dir);
    const builtIn = '#route-list li[data-route="douyin.com/chat"]';
    await waitForText(client, settings, builtIn, "Douyin chat");
    expect(await text(client, settings, builtIn)).toContain("built in");
    expect(await count(client, settings, `${builtIn} button`)).toBe(0);

    // Pasted as a whole URL, as people copy it from the address bar.
    await fill(client, settings, "#route-host", fixtures!.origin);
    await fill(client, settings, "#route-path", "/chat");
    await fill(client, settings, "#route-label", "Test chat");
    await click(client, settings, "#route-add");
    const mine = `#route-list li[data-route="${host()}/chat"]`;
    await waitForText(client, settings, mine, "Test chat");
    expect(await count(client, settings, `${mine} button`)).toBe(1);
    expect(await storedLines(settings)).toBe(`${host()} /chat Test chat`);

    await client.send("browsingContext.reload", { context: settings, wait: "complete" });
    await until(
      async () =>
        (await evaluate<boolean>(client, settings, "typeof browser === 'object'").catch(() => false)) ||
        undefined,
      { message: "the reloaded settings page's add-on APIs" },
    );
    await waitForText(client, settings, mine, "Test chat");

    await fill(client, settings, "#route-host", host());
    await fill(client, settings, "#route-path", "/chat");
    await click(client, settings, "#route-add");
    await waitForText(client, settings, "#route-error", `${host()}/chat is already protected.`);
    await fill(client, settings, "#route-host", "");
    await click(client, settings, "#route-add");
    await waitForText(client, settings, "#route-error", "Enter the site's host");
    expect(await storedLines(settings)).toBe(`${host()} /chat Test chat`);
    await screenshot(client, settings, "settings-messaging-routes");
  }, 120_000);

  it("the add-on's replay refuses a send step on the user's route, recorded there or not", async () => {
    const recorded = await replay(settings, sayHi(fixtures!.url("/chat/chat.html")));
    expect(recorded).toMatchObject({ status: "stopped", step: 2, completed: 0 });
    expect(recorded.reason).toMatch(/may send a message on Test chat, a protected messaging route/);

    const crafted = await replay(settings, sayHi(fixtures!.url("/elsewhere.html")));
    expect(crafted).toMatchObject({ status: "stopped", step: 2, completed: 1 });
    expect(crafted.reason).toMatch(/^click_ax failed: Recipient guard: /);
    await settle();
    expect(sent).toEqual([]);
  }, 120_000);

  it("an agent run's Send on the user's route is refused, and the model is told why", async () => {
    let refusal = "";
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
        (request) => {
          const tree = lastToolResultText(request);
          return {
            toolCalls: [
              { name: "type_ax", arguments: { ref_id: findRef(tree, "textbox", "Message"), value: "Hi" } },
              { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Send") } },
            ],
          };
        },
        (request) => {
          refusal = lastToolResultText(request);
          return { toolCalls: [{ name: "done", arguments: { summary: "The guard refused the send." } }] };
        },
      ],
    });
    // Clicking and typing there always allowed, so no permission prompt waits for a sidebar.
    await storeSettings(firefox.client, settings, scriptedSettings(llm.baseUrl, { maxSteps: 10 }), {
      "agent:permissions:always": { [`interact ${fixtures!.origin}`]: true },
    });
    await startChatOnPage(
      firefox,
      settings,
      // A URL of its own: the replays left tabs on the plain chat page.
      fixtures!.url("/chat/chat.html?run=agent"),
      "Say Hi to Alice Martin",
      "act",
    );
    await waitFor(async () => llm!.remaining() === 0 && refusal !== "", {
      timeoutMs: 60_000,
      message: "the model told of the refused send",
    });
    expect(refusal).toMatch(/Recipient guard: /);
    await settle();
    expect(sent).toEqual([]);
  }, 120_000);

  it("once the person removes the route, the guard no longer protects it", async () => {
    const client = firefox.client;
    const mine = `#route-list li[data-route="${host()}/chat"]`;
    await click(client, settings, `${mine} button`);
    await until(async () => ((await count(client, settings, mine)) === 0 ? true : undefined), {
      message: "the removed route gone from the list",
    });
    expect(await storedLines(settings)).toBe("");
    expect(await count(client, settings, '#route-list li[data-route="douyin.com/chat"]')).toBe(1);

    const crafted = await replay(settings, sayHi(fixtures!.url("/elsewhere.html")));
    expect(crafted).toMatchObject({ status: "done", steps: 2 });
    await waitFor(async () => sent.length > 0, { message: "the unprotected replay's message" });
    expect(sent).toEqual([{ to: "Alice Martin", text: "Hi" }]);
  }, 120_000);
});
