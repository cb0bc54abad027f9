/**
 * The companion as in a person's Firefox: nobody else holds the BiDi session, so the companion
 * finds the endpoint from its parent Firefox, opens the one session Firefox allows
 * (`session.new`), and presses trusted input with it. Headless Firefox 153 ESR.
 *
 * The test's own session is only for setup: it installs a probe add-on (WebBrain's id) and then
 * ends its session (`session.end`; Firefox keeps running). From then on nothing but the add-on
 * drives Firefox: its background page, released by the fixture server's /go, asks the companion
 * for hello, opens the trusted-only page, has the companion type and click there, reads the page
 * back and posts all of it to /report. Closing Firefox must leave no companion behind.
 */
import { rm } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { type FirefoxBrowser, launchFirefox } from "@webbrain/bidi";
import { COMPANION_HOST_NAME, COMPANION_TAB_MARKER_ATTRIBUTE, type CompanionHello } from "@webbrain/protocol";
import {
  type FixtureServer,
  readJsonBody,
  startFixtureServer,
  testsRunHeadless,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, expect, it } from "vitest";
import { homeWithCompanion, waitForExit, writeProbeAddon } from "./companion-probe.js";

interface Report {
  hello?: { ok: boolean; result?: CompanionHello; error?: string };
  typed?: { ok: boolean; result?: { success: boolean }; error?: string };
  clicked?: { ok: boolean; result?: { success: boolean }; error?: string };
  log?: string;
  error?: string;
}

let home = "";
let server: FixtureServer | undefined;
let browser: FirefoxBrowser | undefined;

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

/** The probe's background page: waits for /go, then works through the companion alone. */
function probeBackground(origin: string): string {
  return `
  const call = (() => {
    let next = 1;
    const pending = new Map();
    const port = browser.runtime.connectNative(${JSON.stringify(COMPANION_HOST_NAME)});
    port.onMessage.addListener((m) => { pending.get(m.id)?.(m); pending.delete(m.id); });
    port.onDisconnect.addListener((p) => { for (const r of pending.values()) r({ ok: false, error: String(p.error && p.error.message) }); });
    return (request) => new Promise((resolve) => { const id = next++; pending.set(id, resolve); port.postMessage({ ...request, id }); });
  })();
  (async () => {
    const report = {};
    try {
      await fetch(${JSON.stringify(`${origin}/go`)});
      report.hello = await call({ type: "hello" });
      const url = ${JSON.stringify(`${origin}/runner/trusted-only.html`)};
      const tab = await browser.tabs.create({ url });
      await new Promise((resolve) => {
        const done = (id, info) => { if (id === tab.id && info.status === "complete") { browser.tabs.onUpdated.removeListener(done); resolve(); } };
        browser.tabs.onUpdated.addListener(done);
      });
      await browser.tabs.executeScript(tab.id, {
        code: ${JSON.stringify(`document.documentElement.setAttribute(${JSON.stringify(COMPANION_TAB_MARKER_ATTRIBUTE)}, "own-session"); true`)},
      });
      const act = (action, params) => call({ type: "page_action", tabId: tab.id, marker: "own-session", action, params });
      report.typed = await act("type_text", { selector: "#coupon", text: "OWN" });
      report.clicked = await act("click", { selector: "#confirm" });
      [report.log] = await browser.tabs.executeScript(tab.id, { code: "document.getElementById('log').textContent" });
    } catch (error) {
      report.error = String(error);
    }
    await fetch(${JSON.stringify(`${origin}/report`)}, { method: "POST", body: JSON.stringify(report) });
  })();`;
}

it("finds its parent Firefox's endpoint, opens the BiDi session itself, and its click lands; closing Firefox ends it", async () => {
  home = await homeWithCompanion("webbrain-companion-own-");
  // /go is answered once the test has ended its own session (long polling: held until then).
  const held: ServerResponse[] = [];
  let go = false;
  const release = () => {
    go = true;
    for (const res of held.splice(0)) res.writeHead(200, { "content-type": "text/plain" }).end("go");
  };
  let report: Report | undefined;
  server = await startFixtureServer({
    routes: {
      "/go": (_req, res) => {
        if (go) res.writeHead(200, { "content-type": "text/plain" }).end("go");
        else held.push(res);
      },
      "/report": async (req, res) => {
        report = await readJsonBody<Report>(req);
        res.writeHead(204).end();
      },
    },
  });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete env.WEBBRAIN_COMPANION_SESSION;
  browser = await launchFirefox({ headless: testsRunHeadless(), env });
  const addonDir = join(home, "probe-addon");
  await writeProbeAddon(addonDir, probeBackground(server.origin));
  await browser.client.send("webExtension.install", { extensionData: { type: "path", path: addonDir } });
  // Hand Firefox's one session over: from here on only the add-on and its companion drive it.
  await browser.client.send("session.end", {});
  release();

  const got = (await waitFor(() => report, {
    timeoutMs: 30_000,
    message: "the probe add-on never reported",
  })) as Report;
  expect(got.error).toBeUndefined();
  expect(got.hello).toMatchObject({ ok: true, result: { bidi: true, endpoint: browser.wsEndpoint } });
  expect(got.hello?.result?.browser).toBe(
    `Firefox ${browser.browserVersion} (connected at ${browser.wsEndpoint})`,
  );
  expect(got.typed).toMatchObject({ ok: true, result: { success: true } });
  expect(got.clicked).toMatchObject({ ok: true, result: { success: true } });
  expect(got.log).toBe("Order confirmed with coupon OWN");

  const pid = got.hello!.result!.pid;
  await browser.close();
  await waitForExit(pid, "the companion, after Firefox closed,");
});
