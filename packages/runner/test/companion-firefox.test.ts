/**
 * The companion started by real Firefox (headless 153 ESR) for an add-on, as a person's Firefox
 * starts it: `webbrain companion install` writes the host manifest under the HOME this Firefox
 * runs with, a probe add-on with the WebBrain add-on's id calls `runtime.connectNative`, and the
 * companion answers over native messaging.
 *
 * Firefox holds one BiDi session, and this file's harness holds it (it installs the add-on and
 * opens the tabs). A second `session.new` is refused ("Maximum number of active sessions") and
 * sessions opened over WebSocket have no /session/<id> path to join, so the companion is lent the
 * harness's session through testkit's relay (WEBBRAIN_COMPANION_SESSION). What it finds on its
 * own is still checked: hello reports the endpoint it discovered from its parent process, which
 * must be this Firefox's.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import {
  type BidiClient,
  callFunction,
  evaluate,
  type FirefoxBrowser,
  launchFirefox,
  navigate,
} from "@webbrain/bidi";
import { COMPANION_HOST_NAME, COMPANION_TAB_MARKER_ATTRIBUTE, type CompanionHello } from "@webbrain/protocol";
import {
  type FixtureServer,
  type SessionRelay,
  startFixtureServer,
  startSessionRelay,
  testsRunHeadless,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPANION_SESSION_ENV } from "../src/companion/companion-host.js";
import { discoverFirefoxBidi } from "../src/companion/firefox-endpoint.js";
import { homeWithCompanion, PROBE_ADDON_ID, waitForExit, writeProbeAddon } from "./companion-probe.js";

const ADDON_UUID = "7d3f0a52-1c4e-4b8a-9e61-2f5a6b7c8d9e";
const PROBE_URL = `moz-extension://${ADDON_UUID}/probe.html`;

let home: string;
let server: FixtureServer;
let relay: SessionRelay;
let browser: FirefoxBrowser;
let probe: string;

/** The probe's page, from which the test calls the companion over one port, by id. */
const PROBE_PAGE_SCRIPT = `let port; let next = 1; const pending = new Map();
    window.connectCompanion = () => {
      port = browser.runtime.connectNative(${JSON.stringify(COMPANION_HOST_NAME)});
      port.onMessage.addListener((m) => { pending.get(m.id)?.(m); pending.delete(m.id); });
      port.onDisconnect.addListener((p) => {
        for (const resolve of pending.values()) resolve({ ok: false, error: "disconnected: " + (p.error && p.error.message) });
        pending.clear();
      });
    };
    window.callCompanion = (request) => new Promise((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      port.postMessage({ ...request, id });
    });
    window.disconnectCompanion = () => port.disconnect();
    window.markTab = async (tabId, marker) => {
      await browser.tabs.executeScript(tabId, {
        code: "document.documentElement.setAttribute(" + JSON.stringify(${JSON.stringify(COMPANION_TAB_MARKER_ATTRIBUTE)}) + ", " + JSON.stringify(marker) + ")",
      });
      return true;
    };`;

async function callCompanion<T>(client: BidiClient, request: Record<string, unknown>): Promise<T> {
  return callFunction<T>(client, probe, "(request) => window.callCompanion(request)", [request], {
    awaitPromise: true,
  });
}

/** Opens `url` in a new tab; answers its BiDi context and its Firefox tab id. */
async function openTab(url: string): Promise<{ context: string; tabId: number }> {
  const { context } = await browser.client.send("browsingContext.create", { type: "tab" });
  await navigate(browser.client, context, url);
  const tabs = await evaluate<{ id: number; url: string }[]>(
    browser.client,
    probe,
    "browser.tabs.query({}).then((tabs) => tabs.map((t) => ({ id: t.id, url: t.url })))",
    { awaitPromise: true },
  );
  // The newest tab on this URL is the one just opened (tab ids only grow).
  const tabId = Math.max(...tabs.filter((t) => t.url === url).map((t) => t.id));
  return { context, tabId };
}

function pageText(context: string, selector: string): Promise<string> {
  return callFunction<string>(browser.client, context, "(s) => document.querySelector(s).textContent", [
    selector,
  ]);
}

beforeAll(async () => {
  home = await homeWithCompanion("webbrain-companion-home-");
  server = await startFixtureServer();
  relay = await startSessionRelay(() => browser.client);
  browser = await launchFirefox({
    headless: testsRunHeadless(),
    // Firefox looks for native-messaging hosts under $HOME/.mozilla and passes its environment
    // on to the host it starts.
    env: { ...process.env, HOME: home, [COMPANION_SESSION_ENV]: relay.url },
    prefs: { "extensions.webextensions.uuids": JSON.stringify({ [PROBE_ADDON_ID]: ADDON_UUID }) },
  });
  const addonDir = join(home, "probe-addon");
  await writeProbeAddon(addonDir, 'browser.tabs.create({ url: "probe.html" });\n', {
    "probe.html": "<!doctype html><title>probe</title><script src=probe.js></script>",
    "probe.js": PROBE_PAGE_SCRIPT,
  });
  await browser.client.send("webExtension.install", { extensionData: { type: "path", path: addonDir } });
  probe = (await waitFor(
    async () => {
      const tree = await browser.client.send("browsingContext.getTree", { maxDepth: 0 });
      const page = tree.contexts.find((c) => c.url === PROBE_URL)?.context;
      if (!page) return undefined;
      const ready = await evaluate<boolean>(
        browser.client,
        page,
        "typeof window.connectCompanion === 'function'",
      ).catch(() => false);
      return ready ? page : undefined;
    },
    { timeoutMs: 15_000, message: "the probe add-on's page did not open" },
  )) as string;
  await evaluate(browser.client, probe, "window.connectCompanion(), true");
});

afterAll(async () => {
  await browser?.close();
  await relay?.close();
  await server?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe("the companion in real Firefox", () => {
  it("finds this Firefox's BiDi endpoint from its own process", async () => {
    const found = await discoverFirefoxBidi(browser.pid);
    expect(found).toEqual({
      found: true,
      endpoint: browser.wsEndpoint,
      profileDir: browser.profileDir,
      firefoxPid: browser.pid,
    });
  });

  it("is started by Firefox for the add-on, finds its parent's endpoint, and holds the lent session", async () => {
    const answer = await callCompanion<{ ok: boolean; result: CompanionHello }>(browser.client, {
      type: "hello",
    });
    expect(answer.ok).toBe(true);
    expect(answer.result).toMatchObject({ bidi: true, endpoint: browser.wsEndpoint });
    // The session it holds is the lent one (a session joined by URL reports no version).
    expect(answer.result.browser).toBe(`Firefox (connected at ${relay.url})`);
    expect(relay.connections).toBe(1);
  });

  it("clicks and types with trusted input on a page that ignores untrusted events, in the marked tab of two on one URL", async () => {
    const url = server.url("/runner/trusted-only.html");
    const first = await openTab(url);
    const second = await openTab(url);
    expect(second.tabId).not.toBe(first.tabId);
    await callFunction(browser.client, probe, "(id, m) => window.markTab(id, m)", [first.tabId, "tab-a"], {
      awaitPromise: true,
    });
    await callFunction(browser.client, probe, "(id, m) => window.markTab(id, m)", [second.tabId, "tab-b"], {
      awaitPromise: true,
    });
    const act = (tab: { tabId: number }, marker: string, action: string, params: Record<string, unknown>) =>
      callCompanion<{ ok: boolean; result: { success: boolean }; error?: string }>(browser.client, {
        type: "page_action",
        tabId: tab.tabId,
        marker,
        action,
        params,
      });

    const typed = await act(second, "tab-b", "type_text", { selector: "#coupon", text: "SAVE10" });
    expect(typed, JSON.stringify(typed)).toMatchObject({ ok: true, result: { success: true } });
    const clicked = await act(second, "tab-b", "click", { selector: "#confirm" });
    expect(clicked, JSON.stringify(clicked)).toMatchObject({ ok: true, result: { success: true } });
    expect(await pageText(second.context, "#log")).toBe("Order confirmed with coupon SAVE10");
    // The other tab on the same URL was not touched.
    expect(await pageText(first.context, "#log")).toBe("Nothing confirmed");

    const other = await act(first, "tab-a", "click", { selector: "#confirm" });
    expect(other).toMatchObject({ ok: true, result: { success: true } });
    expect(await pageText(first.context, "#log")).toBe("Order confirmed with coupon none");

    const unmarked = await act({ tabId: 999_999 }, "no-such-marker", "click", { selector: "#confirm" });
    expect(unmarked).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no tab of this Firefox carries/),
    });
  });

  it("leaves no process behind when the add-on disconnects", async () => {
    const { result } = await callCompanion<{ result: CompanionHello }>(browser.client, { type: "hello" });
    await evaluate(browser.client, probe, "window.disconnectCompanion(), true");
    await waitForExit(result.pid, "the companion, after the port closed,");
    await waitFor(() => relay.connections === 0, {
      timeoutMs: 5_000,
      message: "the lent session socket stayed open",
    });
  });
});
