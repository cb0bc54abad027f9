/**
 * The add-on with the companion (`webbrain companion`), in real headless Firefox 153 ESR: the
 * runner's native-messaging host installed by `webbrain companion install` under the HOME this
 * Firefox runs with, turned on in Settings (which asks for "nativeMessaging" from a click), and
 * an Act run whose scripted model types and clicks by the tree's refs on a page that ignores
 * untrusted events; through it, a button in a closed shadow root, and execute_js on a page whose
 * CSP forbids every script.
 *
 * Firefox allows one BiDi session, and the harness holds it (it installs the add-on and reads the
 * pages); a second `session.new` is refused. So the companion is lent the harness's session
 * through testkit's relay (WEBBRAIN_COMPANION_SESSION); everything else it does (started by
 * Firefox for the add-on, tab found by marker, the runner's BiDi port pressing the keys) is real.
 */
import { readdir, readFile } from "node:fs/promises";
import type { Workflow } from "@webbrain/agent";
import { evaluate, navigate } from "@webbrain/bidi";
import type { Mode } from "@webbrain/protocol";
import {
  callOnNamed,
  type FixtureServer,
  findRef,
  lastToolResultText,
  type RecordedRequest,
  type ScriptedLlm,
  type ScriptStep,
  startFixtureServer,
  startScriptedLlm,
  toolResultTexts,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildAddon,
  click,
  count,
  grantOptionalPermission,
  installAndOpenSettings,
  openAddonPage,
  replayOnWorkflowPort,
  scriptedSettings,
  storeSettings,
  text,
  until,
  waitForContext,
  waitForText,
} from "./addon-harness.js";
import { useCompanionFirefox } from "./companion-harness.js";

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
const llms: ScriptedLlm[] = [];
let settingsPage = "";

const { firefox } = useCompanionFirefox();

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer({
    routes: {
      [UPLOAD_PATH]: (_req, res) => {
        res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            `<!doctype html><title>${UPLOAD_TITLE}</title><label for="doc">Document</label><input id="doc" type="file"><p id="status">No file</p><script>document.getElementById("doc").addEventListener("change", async (event) => { const file = event.target.files[0]; document.getElementById("status").textContent = file.name + ": " + (await file.text()).trim() + " (trusted: " + event.isTrusted + ")"; });</script>`,
          );
      },
      [ALERT_PATH]: (_req, res) => {
        res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            `<!doctype html><title>${ALERT_TITLE}</title><button id="save">Save draft</button><p id="status">Not saved</p><script>document.getElementById("save").addEventListener("click", (event) => { const sure = confirm("Save the draft now?"); document.getElementById("status").textContent = (sure ? "Saved" : "Not saved") + " (trusted: " + event.isTrusted + ")"; });</script>`,
          );
      },
      [STRICT_CSP_PATH]: (_req, res) => {
        res
          .writeHead(200, { "content-type": "text/html", "content-security-policy": "script-src 'none'" })
          .end(`<!doctype html><title>${STRICT_CSP_TITLE}</title><h1>No scripts here</h1>`);
      },
    },
  });
  settingsPage = await installAndOpenSettings(firefox.client, addon.dir);
});

afterAll(async () => {
  await Promise.all(llms.map((llm) => llm.close()));
  await fixtures?.close();
  await addon?.remove();
});

const COUPON_STEPS = 3;
/** A file input that says what it got and whether its change event was trusted. */
const UPLOAD_PATH = "/companion/upload.html";
const UPLOAD_TITLE = "Upload page";
const OFFERED_NAME = "contract.txt";
const OFFERED_TEXT = "signed: Ada";
/** A button whose click asks the page's confirm() before it saves. */
const ALERT_PATH = "/companion/confirm.html";
const ALERT_TITLE = "Draft page";
/** A page whose Content-Security-Policy forbids every script, eval included. */
const STRICT_CSP_PATH = "/companion/strict-csp.html";
const STRICT_CSP_TITLE = "Strict page";

/** The model: read the tree, type the coupon and confirm by the tree's refs, then finish. */
async function couponModel(): Promise<ScriptedLlm> {
  const llm = await startScriptedLlm({
    dialect: "openai-chat",
    script: [
      { toolCalls: [{ name: "get_accessibility_tree", arguments: { filter: "interactive" } }] },
      (request: RecordedRequest) => {
        const tree = lastToolResultText(request);
        return {
          toolCalls: [
            {
              name: "type_ax",
              arguments: { ref_id: findRef(tree, "textbox", "Coupon code"), value: "SAVE10" },
            },
            { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Confirm order") } },
          ],
        };
      },
      { toolCalls: [{ name: "done", arguments: { summary: "Typed the coupon and confirmed." } }] },
    ],
  });
  llms.push(llm);
  return llm;
}

let pageCounter = 0;
async function openCheckout(url: string): Promise<{ context: string; tabId: number }> {
  const context = await firefox.newTab();
  await navigate(firefox.client, context, url);
  // Tab ids only grow: the newest tab on this URL is the one just opened.
  const tabId = await until(
    () =>
      evaluate<number | null>(
        firefox.client,
        settingsPage,
        `browser.tabs.query({}).then((tabs) => Math.max(...tabs.filter((t) => t.url === ${JSON.stringify(url)}).map((t) => t.id)))`,
        { awaitPromise: true },
      ),
    { message: `no tab shows ${url}` },
  );
  return { context, tabId };
}

/** Runs the coupon task in `tabId` from its sidebar, as a person would; answers the sidebar. */
async function runCouponTask(
  tabId: number,
  companion: boolean,
  model?: {
    script: ScriptStep[];
    whileRunning?: (sidebar: string) => Promise<void>;
    settings?: Record<string, unknown>;
    /** The page's title, which the sidebar shows once it follows the tab. */
    title?: string;
    mode?: Exclude<Mode, "ask">;
  },
): Promise<{ sidebar: string; llm: ScriptedLlm }> {
  const llm = model
    ? await startScriptedLlm({ dialect: "openai-chat", script: model.script })
    : await couponModel();
  if (model) llms.push(llm);
  const steps = model ? model.script.length : COUPON_STEPS;
  await storeSettings(firefox.client, settingsPage, {
    ...scriptedSettings(llm.baseUrl, model?.settings),
    companion,
  });
  const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
  await waitForText(firefox.client, sidebar, "#tab-title", model?.title ?? "Trusted input only");
  await evaluate(
    firefox.client,
    settingsPage,
    `browser.runtime.sendMessage(${JSON.stringify({ type: "chat_start", tabId, text: "Use coupon SAVE10 and confirm the order.", mode: model?.mode ?? "act" })})`,
    { awaitPromise: true },
  );
  await model?.whileRunning?.(sidebar);
  // The permission gate asks once for "interact" on the fixture origin: the person always allows.
  await waitFor(
    async () => {
      if ((await count(firefox.client, sidebar, "#live .prompt")) > 0) {
        await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(2)").catch(() => undefined);
      }
      return llm.requests.length === steps;
    },
    { timeoutMs: 30_000, message: "the run did not reach done" },
  );
  return { sidebar, llm };
}

/** Pids of companions Firefox started (children of Firefox's main process running `companion serve`). */
async function companionPids(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid !== firefox.browser.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes("companion\0serve")) pids.push(Number(entry));
  }
  return pids;
}

describe("the companion in the add-on", () => {
  it("without the companion, Settings says what it would add and the run reports synthetic input", async () => {
    const hint = await text(firefox.client, settingsPage, "#companion-hint");
    expect(hint).toContain("--remote-debugging-port");
    const url = `${fixtures!.url("/runner/trusted-only.html")}?case=${++pageCounter}`;
    const page = await openCheckout(url);
    const { sidebar, llm } = await runCouponTask(page.tabId, false);
    await waitForText(firefox.client, sidebar, "#run-input", "Input: synthetic");
    expect(
      await evaluate(firefox.client, sidebar, "document.getElementById('run-input').dataset.input"),
    ).toBe("synthetic");
    // The run still worked (the model got answers and finished); the page ignored the events.
    expect(toolResultTexts(llm.requests[2]!).join("\n")).toContain("success");
    expect(await text(firefox.client, page.context, "#log")).toBe("Nothing confirmed");
    expect(await companionPids()).toEqual([]);
  });

  it("turned on from Settings: trusted typing and click land, in the right one of two tabs on one URL", async () => {
    // The person ticks the box; Firefox grants the optional permission from that click.
    await grantOptionalPermission(firefox.client, settingsPage, "nativeMessaging");
    await click(firefox.client, settingsPage, "#companion");
    await waitForText(firefox.client, settingsPage, "#companion-status", "Input: trusted");

    const url = `${fixtures!.url("/runner/trusted-only.html")}?case=${++pageCounter}`;
    const other = await openCheckout(url);
    const page = await openCheckout(url);
    expect(page.tabId).not.toBe(other.tabId);
    const { sidebar } = await runCouponTask(page.tabId, true);
    await waitForText(firefox.client, sidebar, "#run-input", "Input: trusted");
    await waitForText(firefox.client, page.context, "#log", "Order confirmed with coupon SAVE10");
    expect(await text(firefox.client, page.context, "#coupon-log")).toBe("Coupon: SAVE10");
    expect(await text(firefox.client, other.context, "#log")).toBe("Nothing confirmed");
  });

  it("through the companion: a button in a closed shadow root is clicked, and execute_js runs where the page's CSP forbids eval", async () => {
    const features = await openCheckout(
      `${fixtures!.url("/runner/browser-features.html")}?case=${++pageCounter}`,
    );
    const shadowTitle = await evaluate<string>(firefox.client, features.context, "document.title");
    await runCouponTask(features.tabId, true, {
      title: shadowTitle,
      script: [
        { toolCalls: [{ name: "get_accessibility_tree", arguments: { filter: "interactive" } }] },
        callOnNamed("click_ax", "button", "Secret action"),
        { toolCalls: [{ name: "done", arguments: { summary: "Clicked the secret action." } }] },
      ],
    });
    await waitForText(firefox.client, features.context, "#status", "secret clicked (trusted: true)");

    // A page whose CSP forbids every script, eval included: without the companion the add-on
    // runs the code as an extension-injected page script (Firefox lets those past the page's
    // CSP); with it, BiDi's script.evaluate runs it, which no page CSP governs.
    const strictUrl = `${fixtures!.url(STRICT_CSP_PATH)}?case=${++pageCounter}`;
    const execute = (code: string): ScriptStep[] => [
      { toolCalls: [{ name: "execute_js", arguments: { code } }] },
      { toolCalls: [{ name: "done", arguments: { summary: "Ran it." } }] },
    ];
    const code = "document.title + ' / ' + [1, 2, 3].map((n) => n * 2).join(',')";
    const off = await openCheckout(strictUrl);
    const synthetic = await runCouponTask(off.tabId, false, {
      title: STRICT_CSP_TITLE,
      mode: "dev",
      script: execute(code),
    });
    const offResult = toolResultTexts(synthetic.llm.requests[1]!).join("\n");
    expect(offResult).toContain(`${STRICT_CSP_TITLE} / 2,4,6`);
    expect(offResult).toContain("page script (the page's CSP forbids eval)");
    const on = await openCheckout(`${strictUrl}&on=1`);
    const trusted = await runCouponTask(on.tabId, true, {
      title: STRICT_CSP_TITLE,
      mode: "dev",
      script: execute(code),
    });
    await waitForText(firefox.client, trusted.sidebar, "#run-input", "Input: trusted");
    const onResult = toolResultTexts(trusted.llm.requests[1]!).join("\n");
    expect(onResult).toContain(`${STRICT_CSP_TITLE} / 2,4,6`);
    expect(onResult).not.toContain("page script");
  });

  it("a file the person offered goes into the page's file input with a trusted change through the companion", async () => {
    const offerAndUpload = async (companion: boolean) => {
      const page = await openCheckout(`${fixtures!.url(UPLOAD_PATH)}?case=${++pageCounter}`);
      const offered = await evaluate<{ ok: boolean; error?: string }>(
        firefox.client,
        settingsPage,
        `browser.runtime.sendMessage({ type: "offer_file", tabId: ${page.tabId}, name: ${JSON.stringify(OFFERED_NAME)}, mime: "text/plain", data: new TextEncoder().encode(${JSON.stringify(OFFERED_TEXT)}).buffer })`,
        { awaitPromise: true },
      );
      expect(offered.error).toBeUndefined();
      const run = await runCouponTask(page.tabId, companion, {
        title: UPLOAD_TITLE,
        script: [
          { toolCalls: [{ name: "upload_file", arguments: { path: OFFERED_NAME, selector: "#doc" } }] },
          { toolCalls: [{ name: "done", arguments: { summary: "Uploaded it." } }] },
        ],
      });
      expect(toolResultTexts(run.llm.requests[1]!).join("\n")).toContain("[upload_file ok]");
      return page.context;
    };
    // Without the companion the add-on's content script sets the input's files: the page gets
    // the file, but its change event is untrusted.
    const synthetic = await offerAndUpload(false);
    await waitForText(
      firefox.client,
      synthetic,
      "#status",
      `${OFFERED_NAME}: ${OFFERED_TEXT} (trusted: false)`,
    );
    // Through the companion: BiDi's input.setFiles, a trusted change, the same bytes.
    const trusted = await offerAndUpload(true);
    await waitForText(firefox.client, trusted, "#status", `${OFFERED_NAME}: ${OFFERED_TEXT} (trusted: true)`);
  });

  it("through the companion, a confirm() the click opens is answered and reported in the click's result", async () => {
    const page = await openCheckout(`${fixtures!.url(ALERT_PATH)}?case=${++pageCounter}`);
    const { llm } = await runCouponTask(page.tabId, true, {
      title: ALERT_TITLE,
      script: [
        { toolCalls: [{ name: "get_accessibility_tree", arguments: { filter: "interactive" } }] },
        callOnNamed("click_ax", "button", "Save draft"),
        { toolCalls: [{ name: "done", arguments: { summary: "Saved the draft." } }] },
      ],
    });
    await waitForText(firefox.client, page.context, "#status", "Saved (trusted: true)");
    const clicked = lastToolResultText(llm.requests[2]!);
    expect(clicked).toContain("Save the draft now?");
    expect(clicked).toContain("accepted");
  });

  it("a saved workflow replays through the companion with trusted input (the page ignores untrusted events)", async () => {
    const url = `${fixtures!.url("/runner/trusted-only.html")}?case=${++pageCounter}`;
    const workflow: Workflow = {
      webbrainWorkflow: 2,
      name: "coupon",
      createdAt: "2026-01-01T00:00:00.000Z",
      fromRun: "test",
      startUrl: url,
      params: [],
      steps: [
        {
          tool: "type_ax",
          args: { value: "SAVE10" },
          target: { role: "textbox", name: "Coupon code", within: [] },
          url,
        },
        { tool: "click_ax", args: {}, target: { role: "button", name: "Confirm order", within: [] }, url },
      ],
    };
    const answer = await replayOnWorkflowPort(firefox.client, settingsPage, workflow);
    expect(answer.reason).toBeUndefined();
    expect(answer).toMatchObject({ status: "done", steps: 2, input: "trusted" });
    const context = await waitForContext(firefox.client, (shown) => shown === url, "the replay's tab");
    await waitForText(firefox.client, context, "#log", "Order confirmed with coupon SAVE10");
  });

  it("a companion killed mid-call: that call fails with a sentence in the sidebar, the next one starts a new companion", async () => {
    const [first] = await until(async () => {
      const pids = await companionPids();
      return pids.length === 1 ? pids : undefined;
    });
    const url = `${fixtures!.url("/runner/trusted-only.html")}?case=${++pageCounter}`;
    const page = await openCheckout(url);
    const treeOf = (request: RecordedRequest) =>
      toolResultTexts(request).find((result) => result.includes("Confirm order")) ?? "";
    const { sidebar, llm } = await runCouponTask(page.tabId, true, {
      script: [
        { toolCalls: [{ name: "get_accessibility_tree", arguments: { filter: "interactive" } }] },
        // Waits in the companion (nothing matches) until the test kills it.
        {
          toolCalls: [
            { name: "wait_for_element", arguments: { selector: "#never-there", timeout_ms: 25_000 } },
          ],
        },
        // The new companion joins the same lent session, whose sandbox keeps the refs; in a
        // person's Firefox a new companion opens a new session, and an old ref answers stale.
        (request: RecordedRequest) => ({
          toolCalls: [
            { name: "click_ax", arguments: { ref_id: findRef(treeOf(request), "button", "Confirm order") } },
          ],
        }),
        { toolCalls: [{ name: "done", arguments: { summary: "Confirmed." } }] },
      ],
      // Verbose cards show a failed call's error (compact ones say only that it failed).
      settings: { verbose: "verbose" },
      whileRunning: async (shown) => {
        await waitForText(firefox.client, shown, "#status", "wait_for_element");
        process.kill(first!, "SIGKILL");
      },
    });
    const failed = lastToolResultText(llm.requests[2]!);
    expect(failed).toContain("The companion stopped");
    expect(failed).toContain("The next call starts it again.");
    // The person opens the failed call's card and reads why.
    await click(firefox.client, sidebar, "#transcript details.tool.failed summary");
    await waitForText(firefox.client, sidebar, "#transcript", "The companion stopped");
    await waitForText(firefox.client, page.context, "#log", "Order confirmed with coupon none");
    const now = await companionPids();
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(first);
  });

  it("a killed companion is replaced by a new one at the next run; turned off, none is left", async () => {
    const [first] = await until(async () => {
      const pids = await companionPids();
      return pids.length === 1 ? pids : undefined;
    });
    process.kill(first!, "SIGKILL");
    const url = `${fixtures!.url("/runner/trusted-only.html")}?case=${++pageCounter}`;
    const page = await openCheckout(url);
    const { sidebar } = await runCouponTask(page.tabId, true);
    await waitForText(firefox.client, sidebar, "#run-input", "Input: trusted");
    await waitForText(firefox.client, page.context, "#log", "Order confirmed with coupon SAVE10");
    const now = await companionPids();
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(first);

    await click(firefox.client, settingsPage, "#companion");
    await waitFor(async () => (await companionPids()).length === 0, {
      timeoutMs: 10_000,
      message: "a companion still runs after Settings turned it off",
    });
  });
});
