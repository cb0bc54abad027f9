/**
 * Reading and talking in the sidebar, in real Firefox at 360 px: a long answer is shown from
 * its beginning (reading first) with a floating navigation between its sections and back to
 * the newest message; files attached to a message (text, a PDF's text, an image for a vision
 * model) reach the model, and files past the bounds are refused with a clear message.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callFunction, evaluate, navigate, performActions } from "@webbrain/bidi";
import {
  type FixtureServer,
  imageCount,
  type ScriptedLlm,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  userTexts,
  waitFor,
  writeTextPdf,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
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

const SECTIONS = ["Origins", "Construction", "The light", "Earthquakes", "Legacy"];
const LONG_ANSWER = SECTIONS.map(
  (title, index) =>
    `## ${title}\n\n${Array.from(
      { length: 3 },
      (_, p) =>
        `Paragraph ${p + 1} of section ${index + 1}: the Pharos of Alexandria stood for centuries and guided ships into the harbour with fire by night and a mirror by day.`,
    ).join("\n\n")}`,
).join("\n\n");

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
let llm: ScriptedLlm | undefined;

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer();
  llm = await startScriptedLlm({
    dialect: "openai-chat",
    script: [
      { text: LONG_ANSWER },
      { text: "A short follow-up." },
      { text: "I read both files." },
      { text: "I see a red square." },
    ],
  });
});
afterAll(async () => {
  await llm?.close();
  await fixtures?.close();
  await addon?.remove();
  if (filesDir) await rm(filesDir, { recursive: true, force: true });
});

let filesDir = "";

/** A 2x2 red PNG. */
const RED_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==",
  "base64",
);

const firefox = setupFirefox({ prefs: ADDON_PREFS });
let settingsPage = "";
let sidebar = "";

/** Where an element's top is, in pixels below the top of the visible conversation. */
function offsetInChat(selector: string): Promise<number> {
  return evaluate<number>(
    firefox.client,
    sidebar,
    `(() => {
      const chat = document.getElementById("chat").getBoundingClientRect().top;
      return Math.round(document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect().top - chat);
    })()`,
  );
}

/**
 * A trusted click where the element is now: the harness's click scrolls its target into view
 * first, which for a floating (sticky) bar would move the conversation under test.
 */
async function clickInPlace(selector: string): Promise<void> {
  const box = await callFunction<{ x: number; y: number }>(
    firefox.client,
    sidebar,
    `(s) => { const r = document.querySelector(s).getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; }`,
    [selector],
  );
  await performActions(firefox.client, sidebar, [
    {
      type: "pointer",
      id: "mouse",
      parameters: { pointerType: "mouse" },
      actions: [
        { type: "pointerMove", x: Math.round(box.x), y: Math.round(box.y) },
        { type: "pointerDown", button: 0 },
        { type: "pointerUp", button: 0 },
      ],
    },
  ]);
}

function atBottom(): Promise<boolean> {
  return evaluate<boolean>(
    firefox.client,
    sidebar,
    "(() => { const c = document.getElementById('chat'); return c.scrollHeight - c.scrollTop - c.clientHeight < 30; })()",
  );
}

describe("long replies", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
    await evaluate(
      firefox.client,
      settingsPage,
      `browser.storage.local.set({ settings: ${JSON.stringify({
        providers: [scriptedProviderConfig(llm!.baseUrl)],
        activeProviderId: "scripted",
      })} })`,
    );
    const page = await firefox.newTab();
    const url = fixtures!.url("/extension/article.html");
    await navigate(firefox.client, page, url);
    const tabId = await firefoxTabId(firefox.client, settingsPage, url);
    sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
    await setViewport(firefox.client, sidebar, 360, 640);
    await waitForText(firefox.client, sidebar, "#tab-title", "Lighthouse of Alexandria");
  });

  it("shows a long answer from its beginning, with a floating navigation", async () => {
    await fill(firefox.client, sidebar, "#input", "Tell me the whole history.");
    await pressEnter(firefox.client, sidebar);
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Legacy");
    await waitFor(() =>
      evaluate<boolean>(firefox.client, sidebar, "!document.getElementById('reply-nav').hidden"),
    );
    // Reading first: the answer's start is at the top of the conversation, not its end.
    const start = await offsetInChat("#transcript .msg.assistant.long");
    expect(Math.abs(start)).toBeLessThan(12);
    expect(await atBottom()).toBe(false);
    expect(await evaluate(firefox.client, sidebar, "document.getElementById('reply-prev').disabled")).toBe(
      true,
    );
    await screenshot(firefox.client, sidebar, "reading-1-long-reply-start");
  });

  it("jumps between sections and back to the newest", async () => {
    const heading = (n: number) => `#transcript .msg.assistant.long h2:nth-of-type(${n})`;
    // The first section's heading opens the answer, already at the top: Next goes to the second.
    expect(Math.abs(await offsetInChat(heading(1)))).toBeLessThan(12);
    await clickInPlace("#reply-next");
    await waitFor(async () => Math.abs(await offsetInChat(heading(2))) < 12, {
      message: "Next did not bring the second section to the top",
    });
    await clickInPlace("#reply-next");
    await waitFor(async () => Math.abs(await offsetInChat(heading(3))) < 12, {
      message: "Next did not bring the third section to the top",
    });
    await screenshot(firefox.client, sidebar, "reading-2-third-section");
    await clickInPlace("#reply-prev");
    await waitFor(async () => Math.abs(await offsetInChat(heading(2))) < 12, {
      message: "Previous did not go back to the second section",
    });
    await clickInPlace("#reply-newest");
    await waitFor(atBottom, { message: "Newest did not scroll to the end" });
    expect(await evaluate(firefox.client, sidebar, "document.getElementById('reply-newest').disabled")).toBe(
      true,
    );
    await screenshot(firefox.client, sidebar, "reading-3-newest");
  });

  it("follows new output again once the newest is shown", async () => {
    await fill(firefox.client, sidebar, "#input", "And briefly?");
    await pressEnter(firefox.client, sidebar);
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "A short follow-up.");
    await waitFor(atBottom, { message: "a short answer after Newest was not scrolled into view" });
  });
});

/** Chooses files in the sidebar's file picker, as WebDriver does for a person (input.setFiles). */
async function attach(paths: string[]): Promise<void> {
  const input = await firefox.client.send("script.evaluate", {
    expression: "document.getElementById('attach-input')",
    target: { context: sidebar },
    awaitPromise: false,
  });
  const sharedId = (input as { result?: { sharedId?: string } }).result?.sharedId;
  if (!sharedId) throw new Error("the sidebar has no #attach-input");
  await firefox.client.send("input.setFiles", { context: sidebar, element: { sharedId }, files: paths });
}

describe("attachments", () => {
  beforeAll(async () => {
    filesDir = await mkdtemp(join(tmpdir(), "webbrain-attach-"));
    await writeFile(join(filesDir, "notes.txt"), "The keeper's log says the fire was lit at dusk.");
    await writeFile(join(filesDir, "report.pdf"), writeTextPdf(["Sostratus of Cnidus built the Pharos"]));
    await writeFile(join(filesDir, "square.png"), RED_PNG);
    await writeFile(join(filesDir, "huge.txt"), "x".repeat(600 * 1024));
  });

  it("sends a text file and a PDF's text with the message; refuses an image for a text-only model and a file too large", async () => {
    await attach([join(filesDir, "notes.txt"), join(filesDir, "report.pdf")]);
    await waitForText(firefox.client, sidebar, "#attachments", "report.pdf");
    await attach([join(filesDir, "square.png")]);
    await waitForText(firefox.client, sidebar, "#status", "does not understand images");
    await attach([join(filesDir, "huge.txt")]);
    await waitForText(firefox.client, sidebar, "#status", "at most 512 KB");
    await screenshot(firefox.client, sidebar, "attach-1-chips-and-refusal");
    await fill(firefox.client, sidebar, "#input", "What do these files say?");
    await pressEnter(firefox.client, sidebar);
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "I read both files.");
    const sent = userTexts(llm!.requests.at(-1)!).join("\n");
    expect(sent).toContain("What do these files say?");
    expect(sent).toContain('<attached_file name="notes.txt">');
    expect(sent).toContain("fire was lit at dusk");
    expect(sent).toContain("Sostratus of Cnidus built the Pharos");
    expect(await evaluate(firefox.client, sidebar, "document.getElementById('attachments').hidden")).toBe(
      true,
    );
    await waitForText(firefox.client, sidebar, "#transcript .msg.user .attached", "notes.txt, report.pdf");
    await screenshot(firefox.client, sidebar, "attach-2-sent");
  });

  it("sends an attached image to a vision model", async () => {
    await evaluate(
      firefox.client,
      settingsPage,
      `browser.storage.local.get("settings").then(({ settings }) => {
        settings.providers[0].vision = true;
        return browser.storage.local.set({ settings });
      })`,
    );
    await waitFor(() =>
      evaluate<boolean>(firefox.client, sidebar, "document.getElementById('provider').options.length > 0"),
    );
    await waitFor(
      async () => {
        await attach([join(filesDir, "square.png")]);
        return (await text(firefox.client, sidebar, "#attachments")).includes("square.png");
      },
      { message: "the image was not accepted once the model has vision" },
    );
    await fill(firefox.client, sidebar, "#input", "What colour is it?");
    await pressEnter(firefox.client, sidebar);
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "I see a red square.");
    expect(imageCount(llm!.requests.at(-1)!)).toBeGreaterThanOrEqual(1);
    await screenshot(firefox.client, sidebar, "attach-3-image-sent");
  });
});
