/**
 * Drives the built add-on in real Firefox the way a person would: copy the run's build into a temp folder,
 * install it over BiDi (`webExtension.install`, fixed UUID through a pref), find its pages in
 * `browsingContext.getTree`, and act on them with trusted input (`input.performActions`).
 * Screenshots land in packages/extension/.artifacts/ (ignored by git) for a person to look at.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serializeWorkflow, type Workflow } from "@webbrain/agent";
import {
  type BidiClient,
  callFunction,
  captureScreenshot,
  evaluate,
  navigate,
  performActions,
} from "@webbrain/bidi";
import type { Mode } from "@webbrain/protocol";
import {
  type Box,
  boxOf,
  click,
  type FirefoxHarness,
  fill,
  KEY,
  pressEnter,
  typeKeys,
  until,
} from "@webbrain/testkit";
import { inject } from "vitest";
import type { ProviderConfig } from "../src/shared/settings.js";
import { PREBUILT_ADDON_KEY, runAddonBuild } from "./addon-build.js";

// The person's input (trusted clicks and keys by selector) lives in testkit, shared with the
// runner's tests of a person's recording.
export { boxOf, click, fill, pressEnter, typeKeys, until };

export const ADDON_ID = "webbrain@webbrain.dev";
export const ADDON_UUID = "3f9c2a4e-8b1d-4c6e-9a57-0c1d2e3f4a5b";
export const ADDON_ORIGIN = `moz-extension://${ADDON_UUID}`;

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const ARTIFACTS_DIR = join(PACKAGE_DIR, ".artifacts");

/**
 * Prefs: the fixed UUID, and add-on page errors/console on Firefox's stdout/stderr. Optional
 * permissions asked for from a person's click are granted without Firefox's doorhanger (which
 * WebDriver cannot press); the request itself still needs a trusted click in an add-on page.
 */
export const ADDON_PREFS = {
  "extensions.webextensions.uuids": JSON.stringify({ [ADDON_ID]: ADDON_UUID }),
  "extensions.webextOptionalPermissionPrompts": false,
  "browser.dom.window.dump.enabled": true,
  "devtools.console.stdout.content": true,
};

/** Prefs that send every download to `dir` without asking (Firefox's own dialogs stay shut). */
export function downloadPrefs(dir: string): Record<string, string | number | boolean> {
  return {
    "browser.download.dir": dir,
    "browser.download.folderList": 2,
    "browser.download.useDownloadDir": true,
    "browser.download.always_ask_before_handling_new_types": false,
    "browser.download.start_downloads_in_tmp_dir": false,
    "browser.download.alwaysOpenPanel": false,
  };
}

/**
 * The add-on in a temp folder of this test file's own (tests may add pages to it): a copy of the
 * run's one build (addon-build-setup.ts), or a fresh build when the file runs without that setup.
 */
export async function buildAddon(): Promise<{ dir: string; remove(): Promise<void> }> {
  const parent = await mkdtemp(join(tmpdir(), "webbrain-addon-"));
  const dir = join(parent, "addon");
  const remove = () => rm(parent, { recursive: true, force: true });
  try {
    const prebuilt = inject(PREBUILT_ADDON_KEY);
    if (prebuilt) await cp(prebuilt, dir, { recursive: true });
    else await runAddonBuild(dir);
  } catch (error) {
    // A failed build or copy leaves no half-built add-on folder behind.
    await remove();
    throw error;
  }
  return { dir, remove };
}

export async function installAddon(client: BidiClient, dir: string): Promise<string> {
  const result = await client.send("webExtension.install", { extensionData: { type: "path", path: dir } });
  return result.extension;
}

/** Top-level contexts as `{context, url}`. */
export async function contexts(client: BidiClient): Promise<{ context: string; url: string }[]> {
  const tree = await client.send("browsingContext.getTree", { maxDepth: 0 });
  return tree.contexts.map((c) => ({ context: c.context, url: c.url }));
}

export async function waitForContext(client: BidiClient, match: (url: string) => boolean, what: string) {
  return until(async () => (await contexts(client)).find((c) => match(c.url))?.context, {
    timeoutMs: 15_000,
    message: `no tab showing ${what}`,
  });
}

/**
 * Installs the add-on and answers the settings tab it opens on first install: every add-on test
 * drives the extension from that page (storage, `browser.tabs`), so they all start here.
 */
export async function installAndOpenSettings(client: BidiClient, dir: string): Promise<string> {
  await installAddon(client, dir);
  const context = await waitForContext(
    client,
    (url) => url.startsWith(`${ADDON_ORIGIN}/settings.html`),
    "the settings page after install",
  );
  // The tab shows the settings URL before its document has the add-on's APIs (seen on a loaded
  // machine: "browser is not defined" in the first evaluate), so wait for them too.
  await until(
    async () =>
      (await evaluate<boolean>(
        client,
        context,
        `typeof browser === "object" && document.readyState === "complete"`,
      ).catch(() => false)) || undefined,
    { timeoutMs: 15_000, message: "the settings page did not get the add-on's APIs" },
  );
  return context;
}

/** Runs `browser.tabs.create` from an add-on page; returns the new tab's BiDi context. */
export async function openAddonPage(client: BidiClient, fromContext: string, path: string): Promise<string> {
  const url = `${ADDON_ORIGIN}/${path}`;
  const before = new Set((await contexts(client)).map((c) => c.context));
  await evaluate(
    client,
    fromContext,
    `browser.tabs.create({ url: ${JSON.stringify(url)} }).then(() => true)`,
    {
      awaitPromise: true,
    },
  );
  return until(
    async () => (await contexts(client)).find((c) => !before.has(c.context) && c.url === url)?.context,
    { timeoutMs: 15_000, message: `the add-on page ${path} did not open` },
  );
}

/** The Firefox tab id of the tab showing `url`, asked from an add-on page. */
export async function firefoxTabId(client: BidiClient, addonContext: string, url: string): Promise<number> {
  return until(
    () =>
      evaluate<number | null>(
        client,
        addonContext,
        `browser.tabs.query({}).then((tabs) => tabs.find((t) => t.url === ${JSON.stringify(url)})?.id ?? null)`,
        { awaitPromise: true },
      ),
    { message: `no Firefox tab shows ${url}` },
  );
}

/** Shift+click, as a person opening "the details behind" something. */
export async function shiftClick(client: BidiClient, context: string, selector: string): Promise<void> {
  const box = await until(() => boxOf(client, context, selector).catch(() => undefined), {
    message: `nothing to shift-click at ${selector}`,
  });
  const x = Math.round(box.x + box.width / 2);
  const y = Math.round(box.y + box.height / 2);
  await performActions(client, context, [
    {
      type: "key",
      id: "keyboard",
      actions: [
        { type: "keyDown", value: KEY.shift },
        { type: "pause" },
        { type: "pause" },
        { type: "pause" },
        { type: "keyUp", value: KEY.shift },
      ],
    },
    {
      type: "pointer",
      id: "mouse",
      parameters: { pointerType: "mouse" },
      actions: [
        { type: "pause" },
        { type: "pointerMove", x, y },
        { type: "pointerDown", button: 0 },
        { type: "pointerUp", button: 0 },
        { type: "pause" },
      ],
    },
  ]);
}

export function text(client: BidiClient, context: string, selector: string): Promise<string> {
  return callFunction<string>(
    client,
    context,
    "(selector) => [...document.querySelectorAll(selector)].map((el) => el.innerText ?? el.textContent).join('\\n')",
    [selector],
  );
}

export function count(client: BidiClient, context: string, selector: string): Promise<number> {
  return callFunction<number>(client, context, "(s) => document.querySelectorAll(s).length", [selector]);
}

export async function waitForText(
  client: BidiClient,
  context: string,
  selector: string,
  expected: string | RegExp,
  timeoutMs = 20_000,
): Promise<string> {
  let last = "";
  return until(
    async () => {
      last = await text(client, context, selector);
      return (typeof expected === "string" ? last.includes(expected) : expected.test(last))
        ? last
        : undefined;
    },
    {
      timeoutMs,
      intervalMs: 50,
      message: `${selector} never showed ${expected}; last text: ${JSON.stringify(last)}`,
    },
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; last: ${JSON.stringify(last)}`);
  });
}

export async function setViewport(client: BidiClient, context: string, width: number, height: number) {
  await client.send("browsingContext.setViewport", { context, viewport: { width, height } });
}

/**
 * Grants an optional permission as a person would: a trusted click on a button in an add-on
 * page whose handler calls `permissions.request` (Firefox refuses it outside a click).
 */
export async function grantOptionalPermission(
  client: BidiClient,
  addonContext: string,
  permission: string,
): Promise<void> {
  await evaluate(
    client,
    addonContext,
    `(() => {
      const button = document.createElement("button");
      button.id = "grant-permission";
      button.textContent = "Grant";
      button.style = "position:fixed;top:0;left:0;z-index:99999";
      button.onclick = () => {
        browser.permissions.request({ permissions: [${JSON.stringify(permission)}] })
          .then((granted) => { window.permissionGranted = granted; },
                (error) => { window.permissionGranted = String(error); });
      };
      document.body.append(button);
      return true;
    })()`,
  );
  await click(client, addonContext, "#grant-permission");
  const granted = await until(
    () => evaluate<boolean | string | null>(client, addonContext, "window.permissionGranted ?? null"),
    { message: `the ${permission} permission request did not answer` },
  );
  if (granted !== true) throw new Error(`Firefox did not grant ${permission}: ${String(granted)}`);
  await evaluate(client, addonContext, "document.getElementById('grant-permission').remove()");
}

/** Save a PNG of the context's viewport under .artifacts/ for a person to look at. */
export async function screenshot(client: BidiClient, context: string, name: string): Promise<string> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await writeFile(path, await captureScreenshot(client, context));
  return path;
}

/**
 * Save a PNG of the band of the page one element (a settings section, a list) occupies, under
 * .artifacts/: the element is scrolled to the top of the viewport and its rows are captured
 * across the viewport's whole width, scrollbar included, so the image is as wide as the page is
 * shown (an element taller than the viewport is cut at its bottom edge).
 */
export async function screenshotOf(
  client: BidiClient,
  context: string,
  selector: string,
  name: string,
): Promise<string> {
  const box = await callFunction<Box | null>(
    client,
    context,
    `(selector) => {
      const el = document.querySelector(selector);
      if (!el) return null;
      el.scrollIntoView({ block: "start" });
      const r = el.getBoundingClientRect();
      const top = Math.max(0, r.y);
      return { x: 0, y: top, width: window.innerWidth, height: Math.min(r.bottom, window.innerHeight) - top };
    }`,
    [selector],
  );
  if (!box) throw new Error(`no element matches ${selector}`);
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  const clip = { type: "box" as const, ...box };
  await writeFile(path, await captureScreenshot(client, context, { clip }));
  return path;
}

/** Puts a file into an `<input type=file>` of a page, as the file picker would. */
export async function chooseFile(client: BidiClient, context: string, selector: string, path: string) {
  const found = await client.send("script.evaluate", {
    expression: `document.querySelector(${JSON.stringify(selector)})`,
    target: { context },
    awaitPromise: false,
    resultOwnership: "root",
  });
  if (found.type !== "success" || !("sharedId" in found.result) || !found.result.sharedId) {
    throw new Error(`no element ${selector}`);
  }
  await client.send("input.setFiles", {
    context,
    element: { sharedId: found.result.sharedId },
    files: [path],
  });
}

/** A provider entry for a scripted OpenAI-compatible model at `baseUrl` (settings shape). */
export function scriptedProviderConfig(
  baseUrl: string,
  overrides: Partial<ProviderConfig> = {},
): ProviderConfig {
  return {
    id: "scripted",
    label: "Scripted",
    api: "openai-completions",
    baseUrl,
    apiKey: "",
    model: "scripted-1",
    tier: "mid",
    vision: false,
    contextWindow: 32_000,
    timeoutSeconds: 180,
    azureDeployment: "",
    azureApiVersion: "v1",
    bedrockRegion: "",
    ...overrides,
  };
}

/** The settings most tests run with: the scripted provider at `baseUrl`, no plan, plain cards. */
export function scriptedSettings(baseUrl: string, overrides: Record<string, unknown> = {}) {
  return {
    providers: [scriptedProviderConfig(baseUrl)],
    activeProviderId: "scripted",
    maxSteps: 5,
    planBeforeAct: false,
    verbose: "normal",
    ...overrides,
  };
}

/** Stores `settings` (and any other keys) in the add-on's storage.local, from an add-on page. */
export async function storeSettings(
  client: BidiClient,
  addonContext: string,
  settings: object,
  more: Record<string, unknown> = {},
): Promise<void> {
  await evaluate(
    client,
    addonContext,
    `browser.storage.local.set(${JSON.stringify({ settings, ...more })}).then(() => true)`,
    { awaitPromise: true },
  );
}

/**
 * Opens `url` in a new tab and starts a chat there as the sidebar would (a chat_start message
 * from an add-on page). Answers the tab's Firefox id.
 */
export async function startChatOnPage(
  firefox: FirefoxHarness,
  addonContext: string,
  url: string,
  task: string,
  mode: Mode,
): Promise<number> {
  const context = await firefox.newTab();
  await navigate(firefox.client, context, url);
  const tabId = await firefoxTabId(firefox.client, addonContext, url);
  await evaluate(
    firefox.client,
    addonContext,
    `browser.runtime.sendMessage(${JSON.stringify({ type: "chat_start", tabId, text: task, mode })})`,
    { awaitPromise: true },
  );
  return tabId;
}

/** What the background's workflow port answers a replay (ReplayResult, or an error). */
export interface WorkflowPortAnswer {
  status: string;
  step?: number;
  steps?: number;
  reason?: string;
  completed?: number;
  tabId?: number;
  input?: string;
}

/**
 * Replays a workflow as the panel's Run button does: on the background's workflow port (opened
 * from the add-on page `context`), every permission the gate asks answered `answer`.
 */
export function replayOnWorkflowPort(
  client: BidiClient,
  context: string,
  workflow: Workflow,
  answer: "once" | "deny" = "once",
): Promise<WorkflowPortAnswer> {
  return evaluate<WorkflowPortAnswer>(
    client,
    context,
    `new Promise((resolve) => {
      const port = browser.runtime.connect({ name: "webbrain-workflow" });
      port.onMessage.addListener((message) => {
        if (message.type === "webbrain_workflow_permission") {
          port.postMessage({ type: "webbrain_workflow_permission_reply", id: message.id, answer: ${JSON.stringify(answer)} });
          return;
        }
        if (typeof message.status === "string") {
          port.disconnect();
          resolve(message);
        }
      });
      port.postMessage({ type: "webbrain_workflow_run", workflow: ${JSON.stringify(serializeWorkflow(workflow))}, params: {}, url: "" });
    })`,
    { awaitPromise: true },
  );
}
