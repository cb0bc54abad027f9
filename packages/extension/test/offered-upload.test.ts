/**
 * A file the person offers for the page in the real sidebar ("For the page", chosen through the
 * file picker with BiDi input.setFiles), sent by upload_file into a plain form upload in real
 * Firefox with the add-on installed (issue 23): the model is told the file's name, never its
 * bytes; the permission gate asks, naming the file and the site, before it goes to the page; the
 * fixture server receives exactly the file's bytes. A denial at the gate puts nothing into the
 * input and sends nothing; a name the person did not offer is refused (`not_offered`) without a
 * prompt; a file past the 20 MB cap is refused in the sidebar.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  type FixtureServer,
  findRef,
  lastToolResultText,
  type ScriptedLlm,
  type ScriptStep,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  userTexts,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
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
  scriptedSettings,
  setViewport,
  storeSettings,
  text,
  waitForText,
} from "./addon-harness.js";

/** Every byte value, twice, and a multipart-looking line: what arrives must be exactly this. */
const CONTRACT = Buffer.concat([
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from("\r\n--not-a-boundary\r\nsigned: Ada\r\n"),
  Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i)),
]);
const NAME = "contract.bin";

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer;
let filesDir = "";
const llms: ScriptedLlm[] = [];
/** Multipart bodies the fixture server received on the form's action. */
const received: Buffer[] = [];

beforeAll(async () => {
  addon = await buildAddon();
  filesDir = await mkdtemp(join(tmpdir(), "webbrain-offered-"));
  await writeFile(join(filesDir, NAME), CONTRACT);
  fixtures = await startFixtureServer({
    routes: {
      "/extension/upload-sink": (req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          received.push(Buffer.concat(chunks));
          res.writeHead(200, { "content-type": "text/html" }).end("<title>Received</title><h1>Received</h1>");
        });
      },
    },
  });
});
afterAll(async () => {
  await Promise.all(llms.map((llm) => llm.close()));
  await fixtures?.close();
  await addon?.remove();
  if (filesDir) await rm(filesDir, { recursive: true, force: true });
});

const firefox = setupFirefox({ prefs: ADDON_PREFS });
let settingsPage = "";
const openedTabs: string[] = [];

beforeAll(async () => {
  settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
});
afterEach(async () => {
  for (const context of openedTabs.splice(0))
    await firefox.client.send("browsingContext.close", { context }).catch(() => undefined);
});

async function scriptedRun(script: ScriptStep[]): Promise<ScriptedLlm> {
  const llm = await startScriptedLlm({ dialect: "openai-chat", script });
  llms.push(llm);
  await storeSettings(firefox.client, settingsPage, scriptedSettings(llm.baseUrl, { maxSteps: 10 }));
  return llm;
}

let cases = 0;
/** The upload form in its own tab and the sidebar for it (pinned to that tab, 360 px wide). */
async function openFormAndSidebar(): Promise<{ page: string; sidebar: string }> {
  const page = await firefox.newTab();
  openedTabs.push(page);
  const url = `${fixtures.url("/extension/upload-form.html")}?case=${++cases}`;
  await navigate(firefox.client, page, url);
  const tabId = await firefoxTabId(firefox.client, settingsPage, url);
  const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
  openedTabs.push(sidebar);
  await setViewport(firefox.client, sidebar, 360, 760);
  await waitForText(firefox.client, sidebar, "#tab-title", "Send a document");
  return { page, sidebar };
}

/** Chooses files in the sidebar's "For the page" picker, as WebDriver does for a person. */
async function offer(sidebar: string, paths: string[]): Promise<void> {
  const input = await firefox.client.send("script.evaluate", {
    expression: "document.getElementById('offer-input')",
    target: { context: sidebar },
    awaitPromise: false,
  });
  const sharedId = (input as { result?: { sharedId?: string } }).result?.sharedId;
  if (!sharedId) throw new Error("the sidebar has no #offer-input");
  await firefox.client.send("input.setFiles", { context: sidebar, element: { sharedId }, files: paths });
}

async function sendAct(sidebar: string, message: string): Promise<void> {
  await click(firefox.client, sidebar, 'input[name="mode"][value="act"] + span');
  await fill(firefox.client, sidebar, "#input", message);
  await pressEnter(firefox.client, sidebar);
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

/** The uploaded file's bytes in a multipart body (the part whose filename is `name`). */
function filePart(body: Buffer, name: string): Buffer | undefined {
  const header = body.indexOf(`filename="${name}"`);
  if (header < 0) return undefined;
  const start = body.indexOf("\r\n\r\n", header) + 4;
  const boundary = body.subarray(0, body.indexOf("\r\n"));
  const end = body.indexOf(Buffer.concat([Buffer.from("\r\n"), boundary]), start);
  return body.subarray(start, end);
}

describe("a file offered for the page in the sidebar", () => {
  it("goes into the form after the person allows it at the gate, and the server gets its exact bytes", async () => {
    received.length = 0;
    let tree = "";
    const llm = await scriptedRun([
      { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
      (request) => {
        tree = lastToolResultText(request);
        return { toolCalls: [{ name: "upload_file", arguments: { path: NAME, selector: "#doc" } }] };
      },
      () => ({
        toolCalls: [{ name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Send document") } }],
      }),
      { toolCalls: [{ name: "done", arguments: { summary: "Sent the contract." } }] },
    ]);
    const { page, sidebar } = await openFormAndSidebar();
    await offer(sidebar, [join(filesDir, NAME)]);
    await waitForText(firefox.client, sidebar, "#offered-files", NAME);
    await waitForText(firefox.client, sidebar, "#status", "is offered for the page");
    await screenshot(firefox.client, sidebar, "offered-1-file-for-the-page");
    await sendAct(sidebar, "Send my contract with this form.");

    const prompt = await waitForText(firefox.client, sidebar, "#live .prompt", "upload");
    expect(prompt).toContain(`send "${NAME}" (${CONTRACT.length} bytes) to ${fixtures.origin}`);
    await screenshot(firefox.client, sidebar, "offered-2-upload-prompt");
    // Nothing reaches the page before the person answers.
    expect(await evaluate<number>(firefox.client, page, "document.getElementById('doc').files.length")).toBe(
      0,
    );
    await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(1)"); // Allow once
    // The click on Send asks for "interact" on the same site: once, too.
    await waitForText(firefox.client, sidebar, "#live .prompt", "interact");
    await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(1)");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Sent the contract.");
    await waitForRunEnd(sidebar);

    // The model was told the name and size, never the bytes.
    const told = userTexts(llm.requests[0]!).join("\n");
    expect(told).toContain("<offered_files>");
    expect(told).toContain(`"${NAME}" (${CONTRACT.length} bytes, application/octet-stream)`);
    expect(told).not.toContain("signed: Ada");
    expect(lastToolResultText(llm.requests[2]!)).toMatch(/\[upload_file ok\]/);
    await waitFor(async () => received.length === 1, { message: "the form never reached the server" });
    expect(filePart(received[0]!, NAME)?.equals(CONTRACT)).toBe(true);
    await waitForText(firefox.client, page, "h1", "Received");
    expect(await text(firefox.client, sidebar, "#transcript .msg.user .offered")).toBe(`📤 ${NAME}`);
  });

  it("a denial at the gate puts nothing into the input and sends nothing", async () => {
    received.length = 0;
    const llm = await scriptedRun([
      { toolCalls: [{ name: "upload_file", arguments: { path: NAME, selector: "#doc" } }] },
      (request) => ({
        text: "",
        toolCalls: [{ name: "done", arguments: { summary: `Not sent: ${lastToolResultText(request)}` } }],
      }),
    ]);
    const { page, sidebar } = await openFormAndSidebar();
    await offer(sidebar, [join(filesDir, NAME)]);
    await waitForText(firefox.client, sidebar, "#offered-files", NAME);
    await sendAct(sidebar, "Send my contract.");
    await waitForText(firefox.client, sidebar, "#live .prompt", NAME);
    await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(3)"); // Deny
    await waitForRunEnd(sidebar);
    expect(lastToolResultText(llm.requests[1]!)).toContain("The user denied upload");
    expect(await evaluate<number>(firefox.client, page, "document.getElementById('doc').files.length")).toBe(
      0,
    );
    expect(received).toEqual([]);
  });

  it("a name the person did not offer is refused without asking, and the refusal says what to do", async () => {
    received.length = 0;
    const llm = await scriptedRun([
      { toolCalls: [{ name: "upload_file", arguments: { path: "/etc/passwd", selector: "#doc" } }] },
      { toolCalls: [{ name: "upload_file", arguments: { path: "secrets.txt", selector: "#doc" } }] },
      { toolCalls: [{ name: "done", arguments: { summary: "Could not upload." } }] },
    ]);
    const { page, sidebar } = await openFormAndSidebar();
    await offer(sidebar, [join(filesDir, NAME)]);
    await waitForText(firefox.client, sidebar, "#offered-files", NAME);
    await sendAct(sidebar, "Upload my passwords.");
    // No prompt ever opens: the run goes on to the model's done on its own (a prompt would hold it
    // until the timeout). Wait for the request that carries the second refusal, not only for the
    // panel's run end: on a loaded machine the panel can show the end of the run's first part first.
    await waitFor(async () => llm.requests.length >= 3, {
      timeoutMs: 30_000,
      message: "the model was never asked again after the second refusal",
    });
    await waitForRunEnd(sidebar);
    expect(await count(firefox.client, sidebar, "#live .prompt")).toBe(0);
    for (const request of [llm.requests[1]!, llm.requests[2]!]) {
      const refusal = lastToolResultText(request);
      expect(refusal).toContain("[upload_file failed]");
      expect(refusal).toContain("is not a file the user offered for this page");
      expect(refusal).toContain(`offered now: "${NAME}"`);
      expect(refusal).toContain('"code":"not_offered"');
    }
    expect(await evaluate<number>(firefox.client, page, "document.getElementById('doc').files.length")).toBe(
      0,
    );
    expect(received).toEqual([]);
  });

  it("refuses a file over the 20 MB upload cap in the sidebar; a removed file is no longer offered", async () => {
    await scriptedRun([]);
    const { sidebar } = await openFormAndSidebar();
    const huge = join(filesDir, "huge.bin");
    await writeFile(huge, Buffer.alloc(20 * 1024 * 1024 + 1));
    await offer(sidebar, [huge]);
    await waitForText(firefox.client, sidebar, "#status", "may be at most 20 MB");
    expect(await evaluate(firefox.client, sidebar, "document.getElementById('offered-files').hidden")).toBe(
      true,
    );
    await offer(sidebar, [join(filesDir, NAME)]);
    await waitForText(firefox.client, sidebar, "#offered-files", NAME);
    await click(firefox.client, sidebar, "#offered-files button");
    await waitFor(
      () => evaluate<boolean>(firefox.client, sidebar, "document.getElementById('offered-files').hidden"),
      { message: "the removed file is still listed" },
    );
  });
});
