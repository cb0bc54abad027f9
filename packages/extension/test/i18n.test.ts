/**
 * Languages: every locale carries every English message with the same substitutions, and in a
 * Firefox whose UI language is German (`intl.locale.requested`, with Debian's German language
 * pack installed), the settings page and the sidebar show no English string the catalog
 * translates; the model is told to answer in the user's language.
 */
import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  type FixtureServer,
  type ScriptedLlm,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  systemPromptText,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EN_MESSAGES } from "../src/shared/ui-strings.js";
import {
  ADDON_PREFS,
  buildAddon,
  click,
  fill,
  firefoxTabId,
  installAndOpenSettings,
  openAddonPage,
  pressEnter,
  screenshot,
  scriptedProviderConfig,
  setViewport,
  waitForText,
} from "./addon-harness.js";

const LOCALES_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "static", "_locales");
const REQUIRED_LOCALES = ["de", "es", "fr", "zh_CN"];

type Catalog = Record<string, { message: string }>;

async function catalog(locale: string): Promise<Catalog> {
  return JSON.parse(await readFile(join(LOCALES_DIR, locale, "messages.json"), "utf8")) as Catalog;
}

const substitutions = (text: string) => [...text.matchAll(/\$\d/g)].map((m) => m[0]).sort();

describe("locale catalogs", () => {
  it("German, Spanish, French and Simplified Chinese carry every message with its substitutions", async () => {
    const present = await readdir(LOCALES_DIR);
    for (const locale of REQUIRED_LOCALES) expect(present).toContain(locale);
    for (const locale of present) {
      const messages = await catalog(locale);
      expect(Object.keys(messages).sort(), `${locale}: keys`).toEqual(Object.keys(EN_MESSAGES).sort());
      for (const [key, english] of Object.entries(EN_MESSAGES)) {
        const translated = messages[key]?.message ?? "";
        expect(translated.trim(), `${locale}.${key} is empty`).not.toBe("");
        expect(substitutions(translated), `${locale}.${key}: substitutions`).toEqual(substitutions(english));
      }
    }
  });
});

/** English catalog strings German translates differently: none of them may show in the UI. */
async function englishOnlyStrings(): Promise<Set<string>> {
  const german = await catalog("de");
  return new Set(
    Object.entries(EN_MESSAGES)
      .filter(([key, english]) => german[key]?.message !== english && !english.includes("$"))
      .map(([, english]) => english),
  );
}

/**
 * Sections other modules add to the settings page (Settings -> Skills, Offline Wikipedia) keep
 * their strings in their own tables (skills/ui-strings.ts, zim/ui-strings.ts), not yet moved to
 * _locales: left out here, by name, until they are.
 */
const NOT_YET_LOCALIZED = "#skills, #offline-archives";

/** Every string a person can see or hear on the page: text, placeholders, titles, labels. */
function visibleStrings(client: Parameters<typeof evaluate>[0], context: string): Promise<string[]> {
  return evaluate<string[]>(
    client,
    context,
    `(() => {
      const out = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent.trim();
        if (text && !node.parentElement.closest("script, style, datalist, ${NOT_YET_LOCALIZED}")) out.push(text);
      }
      for (const el of document.querySelectorAll("[placeholder], [title], [aria-label]")) {
        if (el.closest("${NOT_YET_LOCALIZED}")) continue;
        for (const name of ["placeholder", "title", "aria-label"]) {
          const value = el.getAttribute(name);
          if (value) out.push(value.trim());
        }
      }
      out.push(document.title);
      return out;
    })()`,
  );
}

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
let llm: ScriptedLlm | undefined;

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer();
  llm = await startScriptedLlm({
    dialect: "openai-chat",
    script: [{ text: "Der Leuchtturm stand auf Pharos." }],
  });
});
afterAll(async () => {
  await llm?.close();
  await fixtures?.close();
  await addon?.remove();
});

const firefox = setupFirefox({ prefs: { ...ADDON_PREFS, "intl.locale.requested": "de" } });

describe("German UI in Firefox", () => {
  let settings = "";

  beforeAll(async () => {
    settings = await installAndOpenSettings(firefox.client, addon!.dir);
    await setViewport(firefox.client, settings, 360, 900);
  });

  it("Firefox runs in German (needs Debian's firefox-esr-l10n-de language pack)", async () => {
    const language = await evaluate<string>(firefox.client, settings, "browser.i18n.getUILanguage()");
    expect(language, "install firefox-esr-l10n-de: without it Firefox cannot switch to German").toMatch(
      /^de/,
    );
  });

  it("the settings page leaves no string untranslated", async () => {
    await waitForText(firefox.client, settings, "h1", "WebBrain-Einstellungen");
    await click(firefox.client, settings, "#add-provider");
    await waitForText(firefox.client, settings, "#editor-heading", "Neuer Anbieter");
    const english = await englishOnlyStrings();
    const leftover = (await visibleStrings(firefox.client, settings)).filter((s) => english.has(s));
    expect(leftover).toEqual([]);
    expect(await evaluate(firefox.client, settings, "document.documentElement.lang")).toMatch(/^de/);
    await screenshot(firefox.client, settings, "i18n-1-settings-de");
    await click(firefox.client, settings, "#cancel-edit");
  });

  it("the sidebar leaves no string untranslated, and the model is asked to answer in German", async () => {
    const client = firefox.client;
    await evaluate(
      client,
      settings,
      `browser.storage.local.set({ settings: ${JSON.stringify({
        providers: [scriptedProviderConfig(llm!.baseUrl)],
        activeProviderId: "scripted",
        maxSteps: 20,
        planBeforeAct: false,
        verbose: "normal",
      })} })`,
    );
    const page = await firefox.newTab();
    const url = fixtures!.url("/extension/article.html");
    await navigate(client, page, url);
    const tabId = await firefoxTabId(client, settings, url);
    const sidebar = await openAddonPage(client, settings, `sidebar.html?tab=${tabId}`);
    await setViewport(client, sidebar, 360, 760);
    await waitForText(client, sidebar, "#send", "Senden");
    const english = await englishOnlyStrings();
    expect((await visibleStrings(client, sidebar)).filter((s) => english.has(s))).toEqual([]);
    await screenshot(client, sidebar, "i18n-2-sidebar-de-empty");

    await fill(client, sidebar, "#input", "Wo stand der Leuchtturm?");
    await pressEnter(client, sidebar);
    await waitForText(client, sidebar, "#transcript .msg.assistant", "Pharos");
    expect(systemPromptText(llm!.requests[0]!)).toContain('language "de');
    expect((await visibleStrings(client, sidebar)).filter((s) => english.has(s))).toEqual([]);
    await screenshot(client, sidebar, "i18n-3-sidebar-de-answer");
  });
});
