/**
 * Languages: every locale carries every English message with the same substitutions, every key
 * the pages and the manifest name is in the catalog, and in a Firefox whose UI language is German
 * (`intl.locale.requested`, with Debian's German language pack installed) no page shows an
 * English string the catalog translates: the settings page (providers, grants, Skills, Offline
 * Wikipedia), the sidebar (chat, scheduled jobs) and the traces page (runs, a run's details,
 * workflows, the API shortcut observer). The model is told to answer in the user's language.
 * What the agent reports as data (a plan to approve, a step-limit pause, a provider it could not
 * reach, the answer to /allow-api) reaches the German chat in German too.
 */
import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  DEFAULT_FIXTURES_ROOT,
  type FixtureServer,
  type ScriptedLlm,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  systemPromptText,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EN_MESSAGES } from "../src/shared/ui-strings.js";
import {
  ADDON_PREFS,
  buildAddon,
  chooseFile,
  click,
  count,
  fill,
  firefoxTabId,
  installAndOpenSettings,
  openAddonPage,
  pressEnter,
  screenshot,
  screenshotOf,
  scriptedProviderConfig,
  scriptedSettings,
  setViewport,
  storeSettings,
  text,
  waitForText,
} from "./addon-harness.js";

const STATIC_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "static");
const LOCALES_DIR = join(STATIC_DIR, "_locales");
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

describe("keys the pages and the manifest use", () => {
  it("every data-i18n key in the HTML pages and every __MSG_ name in the manifest is in the catalog", async () => {
    const names = (await readdir(STATIC_DIR)).filter(
      (name) => name.endsWith(".html") || name === "manifest.json",
    );
    const used: string[] = [];
    for (const name of names) {
      const text = await readFile(join(STATIC_DIR, name), "utf8");
      for (const m of text.matchAll(/data-i18n(?:-[a-z-]+)?="([^"]*)"/g)) used.push(`${name}: ${m[1]}`);
      for (const m of text.matchAll(/__MSG_(\w+)__/g)) used.push(`${name}: ${m[1]}`);
    }
    expect(used.length).toBeGreaterThan(50);
    expect(used.filter((entry) => !(entry.split(": ")[1]! in EN_MESSAGES))).toEqual([]);
  });
});

/**
 * What an untranslated string looks like on a German page: an English catalog string German
 * translates differently, shown as it is or, for a sentence with substitutions ("Next: $1"), with
 * any values in its slots. Templates with fewer than three letters of their own ("$1 — $2") say
 * nothing about the language and are left out.
 */
interface EnglishOnly {
  exact: Set<string>;
  templates: { key: string; pattern: RegExp }[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function englishOnly(): Promise<EnglishOnly> {
  const german = await catalog("de");
  const untranslatedInGerman = Object.entries(EN_MESSAGES).filter(
    ([key, english]) => german[key]?.message !== english,
  );
  const templates = untranslatedInGerman
    .filter(
      ([, english]) =>
        english.includes("$") && english.replace(/\$\d/g, "").replace(/[^A-Za-z]/g, "").length >= 3,
    )
    .map(([key, english]) => ({
      key,
      pattern: new RegExp(`^${english.split(/\$\d/).map(escapeRegExp).join(".+")}$`, "s"),
    }));
  return {
    exact: new Set(untranslatedInGerman.filter(([, english]) => !english.includes("$")).map(([, e]) => e)),
    templates,
  };
}

/** The visible strings that are English catalog strings, each with the key it came from. */
async function leftoverEnglish(client: Parameters<typeof evaluate>[0], context: string): Promise<string[]> {
  const english = await englishOnly();
  return (await visibleStrings(client, context)).flatMap((text) => {
    if (english.exact.has(text)) return [text];
    const template = english.templates.find((t) => t.pattern.test(text));
    return template ? [`${template.key}: ${text}`] : [];
  });
}

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
        if (text && !node.parentElement.closest("script, style, datalist")) out.push(text);
      }
      for (const el of document.querySelectorAll("[placeholder], [title], [aria-label]")) {
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
let planningLlm: ScriptedLlm | undefined;

const JOB_TITLE = "Überschriften zählen";

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer();
  llm = await startScriptedLlm({
    dialect: "openai-chat",
    script: [
      // An hourly job, so the sidebar lists it (pending, next run, not run yet) during the test.
      {
        toolCalls: [
          {
            name: "schedule_task",
            arguments: {
              title: JOB_TITLE,
              prompt: "Zähle die Überschriften.",
              schedule: { type: "recurring", interval_minutes: 60 },
            },
          },
        ],
      },
      { text: "Der Leuchtturm stand auf Pharos." },
    ],
  });
});
afterAll(async () => {
  await planningLlm?.close();
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

  it("the settings page leaves no string untranslated: providers, grants, Skills, Offline Wikipedia", async () => {
    const client = firefox.client;
    await waitForText(client, settings, "h1", "WebBrain-Einstellungen");
    await evaluate(
      client,
      settings,
      `browser.storage.local.set({ "agent:permissions:always": {
        "interact https://shop.example": true, "network https://api.example": true } })`,
    );
    await waitFor(async () => (await count(client, settings, "#grant-list li")) === 2, {
      message: "the two grants listed",
    });
    await waitForText(client, settings, "#skill-list", "Wikipedia");
    await waitForText(client, settings, "#zim-archives", "Kein Offline-Archiv installiert.");
    await click(client, settings, "#add-provider");
    await waitForText(client, settings, "#editor-heading", "Neuer Anbieter");
    expect(await leftoverEnglish(client, settings)).toEqual([]);
    expect(await evaluate(client, settings, "document.documentElement.lang")).toMatch(/^de/);
    await screenshot(client, settings, "i18n-1-settings-de");
    await screenshotOf(client, settings, "#skills", "i18n-4-skills-de");
    await click(client, settings, "#cancel-edit");
  });

  it("the sidebar leaves no string untranslated, with a scheduled job listed; the model is asked to answer in German", async () => {
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
      })}, traceSettings: { enabled: true, maxBytes: 50 * 1024 * 1024 } })`,
    );
    const page = await firefox.newTab();
    const url = fixtures!.url("/extension/article.html");
    await navigate(client, page, url);
    const tabId = await firefoxTabId(client, settings, url);
    const sidebar = await openAddonPage(client, settings, `sidebar.html?tab=${tabId}`);
    await setViewport(client, sidebar, 360, 760);
    await waitForText(client, sidebar, "#send", "Senden");
    expect(await leftoverEnglish(client, sidebar)).toEqual([]);
    await screenshot(client, sidebar, "i18n-2-sidebar-de-empty");

    await fill(client, sidebar, "#input", "Wo stand der Leuchtturm?");
    await pressEnter(client, sidebar);
    await waitForText(client, sidebar, "#transcript .msg.assistant", "Pharos");
    expect(systemPromptText(llm!.requests[0]!)).toContain('language "de');
    await waitForText(client, sidebar, "#scheduled-jobs", `Aufgabe: ${JOB_TITLE}`);
    await waitForText(client, sidebar, "#scheduled-jobs", "alle 60 Min.");
    await waitForText(client, sidebar, "#scheduled-jobs .job-last", "Noch nicht gelaufen");
    expect(await leftoverEnglish(client, sidebar)).toEqual([]);
    await screenshot(client, sidebar, "i18n-3-sidebar-de-answer");
  });

  it("the traces page leaves no string untranslated: a recorded run, its details, a workflow, the API observer", async () => {
    const client = firefox.client;
    const traces = await openAddonPage(client, settings, "traces.html");
    await setViewport(client, traces, 360, 900);
    await waitFor(() => evaluate<boolean>(client, traces, "document.body.dataset.ready === '1'"), {
      timeoutMs: 30_000,
      message: "the traces page to load",
    });
    await waitForText(client, traces, "h1", "Aufgezeichnete Läufe");
    await waitForText(client, traces, "#list", "Wo stand der Leuchtturm?");
    await click(client, traces, "#list li button");
    await waitForText(client, traces, "#detail-meta", "Werkzeugaufrufe");
    await click(client, traces, "#observer");
    await waitForText(client, traces, "#observer-on", "API-Abkürzungs-Beobachter ist AN");
    await chooseFile(
      client,
      traces,
      "#import-workflow",
      join(DEFAULT_FIXTURES_ROOT, "workflow", "order.workflow.json"),
    );
    await waitForText(client, traces, "#workflow-list", "Startseite");
    expect(await leftoverEnglish(client, traces)).toEqual([]);
    expect(await evaluate(client, traces, "document.title")).toBe("WebBrain-Verläufe");
    await screenshot(client, traces, "i18n-5-traces-de");
    await click(client, traces, "#observer");
  });

  it("the agent's plan, its step-limit pause, an unreachable provider and /allow-api read in German in the chat", async () => {
    const client = firefox.client;
    planningLlm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        {
          toolCalls: [
            {
              name: "submit_plan",
              arguments: {
                goal: "Die Überschriften zählen",
                steps: [{ action: "die Seite lesen" }],
                risks: ["keine Änderung an der Seite"],
              },
            },
          ],
        },
        { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
        { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
      ],
    });
    await storeSettings(
      client,
      settings,
      scriptedSettings(planningLlm.baseUrl, { maxSteps: 2, planBeforeAct: true }),
    );
    const page = await firefox.newTab();
    const url = fixtures!.url("/extension/article.html?plan");
    await navigate(client, page, url);
    const tabId = await firefoxTabId(client, settings, url);
    const sidebar = await openAddonPage(client, settings, `sidebar.html?tab=${tabId}`);
    await setViewport(client, sidebar, 360, 760);
    await waitForText(client, sidebar, "#send", "Senden");
    // Localized before it subscribes to the tab: wait for the tab's title too before sending.
    await waitForText(client, sidebar, "#tab-title", "Lighthouse of Alexandria");
    await click(client, sidebar, 'input[name="mode"][value="act"] + span');
    await fill(client, sidebar, "#input", "Zähle die Überschriften.");
    await pressEnter(client, sidebar);

    const plan = await waitForText(client, sidebar, "#live .prompt", "Diesen Plan genehmigen?");
    expect(plan).toContain("Ziel: Die Überschriften zählen");
    expect(plan).toContain("1. die Seite lesen");
    expect(plan).toContain("Risiken: keine Änderung an der Seite");
    expect(await leftoverEnglish(client, sidebar)).toEqual([]);
    await screenshot(client, sidebar, "i18n-6-plan-de");
    await click(client, sidebar, "#live .prompt button:nth-of-type(1)");

    await waitForText(client, sidebar, "#transcript .notice", "Nach 2 Schritten angehalten");
    expect(await leftoverEnglish(client, sidebar)).toEqual([]);
    await screenshot(client, sidebar, "i18n-7-step-limit-de");

    // The provider is gone: Continue reports it, with the endpoint and model, in German.
    await storeSettings(client, settings, scriptedSettings("http://127.0.0.1:9/v1", { maxSteps: 2 }));
    await waitFor(() => evaluate<boolean>(client, sidebar, "!document.getElementById('continue').hidden"), {
      message: "the Continue button after the pause",
    });
    await click(client, sidebar, "#continue");
    const failure = await waitForText(client, sidebar, "#transcript .error", "ist nicht erreichbar");
    expect(failure).toContain("Scripted (http://127.0.0.1:9/v1, Modell scripted-1)");
    expect(failure).toContain("Läuft der Server und stimmt die URL?");
    expect(await leftoverEnglish(client, sidebar)).toEqual([]);
    await screenshot(client, sidebar, "i18n-8-unreachable-de");

    // A command the agent answers by itself, without the model: /allow-api.
    await fill(client, sidebar, "#input", "/allow-api");
    await pressEnter(client, sidebar);
    await waitForText(client, sidebar, "#transcript .msg.assistant", "API-Änderungen");
    expect(await text(client, sidebar, "#transcript .msg.assistant")).toContain(
      "sind in dieser Unterhaltung erlaubt",
    );
    expect(await leftoverEnglish(client, sidebar)).toEqual([]);
  });
});
