/**
 * Every protocol the add-on speaks, in real Firefox, set up as a person would: pick the preset
 * in Settings, type the endpoint and key, press Test connection, save, make it the one in use,
 * then ask a question in the sidebar. Each scripted server speaks its real wire format (OpenAI
 * chat completions, OpenAI Responses, Anthropic messages, Azure OpenAI Responses on a
 * deployment, AWS Bedrock ConverseStream's binary event stream). Then spec 000's streaming:
 * a Responses stream that drops mid-answer, the kill switch, and revoking "always allow".
 */
import { evaluate, navigate } from "@webbrain/bidi";
import {
  type Dialect,
  type FixtureServer,
  KEY,
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
  setViewport,
  text,
  typeKeys,
  waitForText,
} from "./addon-harness.js";

const NARROW_PX = 360;

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
const llms: ScriptedLlm[] = [];

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await Promise.all(llms.map((llm) => llm.close()));
  await fixtures?.close();
  await addon?.remove();
});

const firefox = setupFirefox({ prefs: ADDON_PREFS });
let settingsPage = "";
const openedTabs: string[] = [];

afterEach(async () => {
  for (const context of openedTabs.splice(0)) {
    await firefox.client.send("browsingContext.close", { context }).catch(() => undefined);
  }
});

async function scripted(dialect: Dialect, script: ScriptStep[], eventDelayMs = 0): Promise<ScriptedLlm> {
  const llm = await startScriptedLlm({ dialect, script, eventDelayMs, models: ["scripted-1"] });
  llms.push(llm);
  return llm;
}

/**
 * Choose an option of a <select> with the keyboard, as a person who tabbed to it: Home, then
 * Down to the option (a closed select changes its value on arrow keys).
 */
async function choose(context: string, selector: string, label: string): Promise<void> {
  const index = await evaluate<number>(
    firefox.client,
    context,
    `(() => { const s = document.querySelector(${JSON.stringify(selector)}); s.focus(); return [...s.options].findIndex((o) => o.text.startsWith(${JSON.stringify(label)})); })()`,
  );
  if (index < 0) throw new Error(`${selector} has no option starting with "${label}"`);
  await typeKeys(firefox.client, context, `${KEY.home}${KEY.arrowDown.repeat(index)}`);
  await waitFor(
    () =>
      evaluate<boolean>(
        firefox.client,
        context,
        `(() => { const s = document.querySelector(${JSON.stringify(selector)}); return s.options[s.selectedIndex].text.startsWith(${JSON.stringify(label)}); })()`,
      ),
    { message: `${selector} did not select "${label}"` },
  );
}

interface ProviderForm {
  preset: string;
  name: string;
  baseUrl: string;
  apiKey?: string;
  azureDeployment?: string;
  azureApiVersion?: string;
  bedrockRegion?: string;
}

/** Add a provider through the Settings form, test its connection, save it, and use it. */
async function addProvider(form: ProviderForm, expectTest: string, shot: string): Promise<string> {
  const client = firefox.client;
  await choose(settingsPage, "#preset", form.preset);
  await click(client, settingsPage, "#add-provider");
  await waitForText(client, settingsPage, "#editor-heading", "New provider");
  await fill(client, settingsPage, "#p-label", form.name);
  await fill(client, settingsPage, "#p-baseUrl", form.baseUrl);
  if (form.apiKey) await fill(client, settingsPage, "#p-apiKey", form.apiKey);
  if (form.azureDeployment) await fill(client, settingsPage, "#p-azureDeployment", form.azureDeployment);
  if (form.azureApiVersion) await fill(client, settingsPage, "#p-azureApiVersion", form.azureApiVersion);
  if (form.bedrockRegion) await fill(client, settingsPage, "#p-bedrockRegion", form.bedrockRegion);
  await fill(client, settingsPage, "#p-model", "scripted-1");
  await fill(client, settingsPage, "#p-timeoutSeconds", "30");
  await evaluate(client, settingsPage, "document.getElementById('editor').scrollIntoView()");
  await screenshot(client, settingsPage, `${shot}-form`);
  await click(client, settingsPage, "#test-connection");
  const result = await waitForText(client, settingsPage, "#test-result", expectTest);
  expect(await evaluate(client, settingsPage, "document.getElementById('test-result').className")).toContain(
    "ok",
  );
  await screenshot(client, settingsPage, shot);
  await click(client, settingsPage, "#save-provider");
  await waitForText(client, settingsPage, "#provider-list", form.name);
  const use = `#provider-list button[aria-label="Use ${form.name}"]`;
  if ((await count(client, settingsPage, use)) > 0) await click(client, settingsPage, use);
  await waitFor(
    () =>
      evaluate<boolean>(
        client,
        settingsPage,
        `browser.storage.local.get('settings').then((s) => s.settings.providers.find((p) => p.id === s.settings.activeProviderId)?.label === ${JSON.stringify(form.name)})`,
      ),
    { message: `${form.name} did not become the provider in use` },
  );
  return result;
}

let pageCounter = 0;

async function openSidebarOnArticle(): Promise<string> {
  const page = await firefox.newTab();
  openedTabs.push(page);
  const url = `${fixtures!.url("/extension/article.html")}?case=${++pageCounter}`;
  await navigate(firefox.client, page, url);
  const tabId = await firefoxTabId(firefox.client, settingsPage, url);
  const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
  openedTabs.push(sidebar);
  await setViewport(firefox.client, sidebar, NARROW_PX, 760);
  await waitForText(firefox.client, sidebar, "#tab-title", "Lighthouse of Alexandria");
  return sidebar;
}

async function ask(sidebar: string, message: string): Promise<void> {
  await click(firefox.client, sidebar, 'input[name="mode"][value="ask"] + span');
  await fill(firefox.client, sidebar, "#input", message);
  await pressEnter(firefox.client, sidebar);
}

describe("providers", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
    await setViewport(firefox.client, settingsPage, NARROW_PX, 900);
  });

  it("offers every provider spec 000 lists", async () => {
    const names = [
      "llama.cpp",
      "Ollama",
      "LM Studio",
      "vLLM",
      "SGLang",
      "LocalAI",
      "Jan",
      "KoboldCpp",
      "text-generation-webui",
      "OpenRouter",
      "Groq",
      "Together",
      "DeepSeek",
      "Mistral",
      "xAI",
      "Fireworks",
      "OpenAI (Responses)",
      "OpenAI (chat completions)",
      "Anthropic",
      "Azure OpenAI",
      "AWS Bedrock",
    ];
    // The page fills the list from its script after load: read it once it is there.
    await waitFor(async () => (await count(firefox.client, settingsPage, "#preset option")) >= names.length, {
      message: "the preset list never filled",
    });
    const presets = await text(firefox.client, settingsPage, "#preset option");
    for (const name of names) {
      expect(presets).toContain(name);
    }
  });

  it("OpenAI-compatible chat completions (a local vLLM preset)", async () => {
    const llm = await scripted("openai-chat", [{ text: "Answer over chat completions." }]);
    await addProvider(
      { preset: "vLLM", name: "Chat server", baseUrl: llm.baseUrl },
      "is available",
      "providers-1-chat-test",
    );
    const sidebar = await openSidebarOnArticle();
    await ask(sidebar, "Which protocol?");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Answer over chat completions.");
    expect(llm.requests[0]?.path).toBe("/v1/chat/completions");
    expect(userTexts(llm.requests[0]!).join(" ")).toContain("Which protocol?");
  });

  it("OpenAI Responses, with its key", async () => {
    const llm = await scripted("openai-responses", [{ text: "Answer over Responses." }]);
    await addProvider(
      { preset: "OpenAI (Responses)", name: "Responses", baseUrl: llm.baseUrl, apiKey: "sk-responses" },
      "is available",
      "providers-2-responses-test",
    );
    const sidebar = await openSidebarOnArticle();
    await ask(sidebar, "Which protocol?");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Answer over Responses.");
    expect(llm.requests[0]?.path).toBe("/v1/responses");
    expect(llm.requests[0]?.headers.authorization).toBe("Bearer sk-responses");
  });

  it("Anthropic messages", async () => {
    const llm = await scripted("anthropic", [{ text: "Answer over Anthropic." }]);
    await addProvider(
      { preset: "Anthropic", name: "Claude", baseUrl: llm.baseUrl, apiKey: "sk-ant" },
      "is available",
      "providers-3-anthropic-test",
    );
    const sidebar = await openSidebarOnArticle();
    await ask(sidebar, "Which protocol?");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Answer over Anthropic.");
    expect(llm.requests[0]?.path).toBe("/v1/messages");
    expect(llm.requests[0]?.headers["x-api-key"]).toBe("sk-ant");
  });

  it("Azure OpenAI: resource endpoint, deployment and API version", async () => {
    const llm = await scripted("openai-responses", [
      { text: "OK" }, // Test connection's one-line generation
      { text: "Answer over Azure." },
    ]);
    const result = await addProvider(
      {
        preset: "Azure OpenAI",
        name: "Azure",
        baseUrl: `${llm.baseUrl.replace(/\/v1$/, "")}/openai/v1`,
        apiKey: "azure-key",
        azureDeployment: "webbrain-gpt",
        azureApiVersion: "2025-04-01-preview",
      },
      "answered a short test request",
      "providers-4-azure-test",
    );
    expect(result).toContain("scripted-1");
    const sidebar = await openSidebarOnArticle();
    await ask(sidebar, "Which protocol?");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Answer over Azure.");
    const call = llm.requests[1]!;
    expect(call.path).toMatch(/\/responses$/);
    expect(call.query["api-version"]).toBe("2025-04-01-preview");
    expect(call.headers["api-key"]).toBe("azure-key");
    expect(call.body.model).toBe("webbrain-gpt");
  });

  it("AWS Bedrock: region and API key, ConverseStream's binary event stream", async () => {
    const llm = await scripted("bedrock", [{ text: "OK" }, { text: "Answer over Bedrock." }]);
    const result = await addProvider(
      {
        preset: "AWS Bedrock",
        name: "Bedrock",
        baseUrl: llm.baseUrl,
        apiKey: "bedrock-token",
        bedrockRegion: "eu-west-1",
      },
      "answered a short test request",
      "providers-5-bedrock-test",
    );
    expect(result).toContain("scripted-1");
    const sidebar = await openSidebarOnArticle();
    await ask(sidebar, "Which protocol?");
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "Answer over Bedrock.");
    const call = llm.requests[1]!;
    expect(call.path).toBe("/model/scripted-1/converse-stream");
    expect(call.headers.authorization).toBe("Bearer bedrock-token");
    expect(userTexts(call).join(" ")).toContain("Which protocol?");
    await screenshot(firefox.client, sidebar, "providers-6-bedrock-answer");
  });

  it("a bad key is reported by Test connection for a generation-tested provider", async () => {
    const llm = await scripted("bedrock", [{ fail: "status", status: 403 }]);
    const client = firefox.client;
    await choose(settingsPage, "#preset", "AWS Bedrock");
    await click(client, settingsPage, "#add-provider");
    await fill(client, settingsPage, "#p-baseUrl", llm.baseUrl);
    await fill(client, settingsPage, "#p-apiKey", "wrong");
    await click(client, settingsPage, "#test-connection");
    // Wait for the verdict's class, not the text alone: the pending line names the
    // base URL, whose random port can itself contain "403".
    const verdict = await waitForText(client, settingsPage, "#test-result.failed", "403");
    expect(verdict).toContain("403");
    // The fields of the protocol are shown, the others hidden.
    expect(await evaluate(client, settingsPage, "document.getElementById('bedrock-fields').hidden")).toBe(
      false,
    );
    expect(await evaluate(client, settingsPage, "document.getElementById('azure-fields').hidden")).toBe(true);
    await screenshot(client, settingsPage, "providers-7-bedrock-refused");
    await click(client, settingsPage, "#cancel-edit");
  });
});

describe("streaming (spec 000)", () => {
  const answer = "Alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima.";

  async function useResponses(script: ScriptStep[]): Promise<ScriptedLlm> {
    const llm = await scripted("openai-responses", script, 400);
    await evaluate(
      firefox.client,
      settingsPage,
      `browser.storage.local.get('settings').then(({ settings }) => {
        const provider = settings.providers.find((p) => p.label === "Responses");
        provider.baseUrl = ${JSON.stringify(llm.baseUrl)};
        return browser.storage.local.set({ settings: { ...settings, activeProviderId: provider.id } });
      })`,
      { awaitPromise: true },
    );
    return llm;
  }

  /** Watches the panel until the run ends; returns every streamed text seen on the way. */
  async function streamedTexts(sidebar: string, message: string): Promise<string[]> {
    // The run has begun once the panel shows the message and offers Stop.
    await waitForText(firefox.client, sidebar, "#transcript .msg.user", message);
    const seen: string[] = [];
    await waitFor(
      async () => {
        const live = await text(firefox.client, sidebar, "#live .streaming");
        if (live !== "" && seen.at(-1) !== live) seen.push(live);
        return evaluate<boolean>(
          firefox.client,
          sidebar,
          "document.getElementById('stop').hidden && !document.getElementById('send').disabled",
        );
      },
      { timeoutMs: 30_000, intervalMs: 40, message: "the run did not end" },
    );
    return seen;
  }

  it("an Ask on OpenAI Responses streams; a stream that drops is retried without losing or repeating text", async () => {
    const llm = await useResponses([
      { fail: "drop-mid-stream", text: answer, afterEvents: 5 },
      { text: answer },
    ]);
    const sidebar = await openSidebarOnArticle();
    await ask(sidebar, "Spell the alphabet.");
    await waitForText(firefox.client, sidebar, "#live .streaming", "Alpha");
    await screenshot(firefox.client, sidebar, "streaming-1-partial");
    const seen = await streamedTexts(sidebar, "Spell the alphabet.");
    // The partial text was shown live (above), then cleared; the whole answer is there once.
    expect(seen.every((live) => answer.startsWith(live.trim()))).toBe(true);
    expect(llm.requests).toHaveLength(2);
    const shown = await text(firefox.client, sidebar, "#transcript .msg.assistant");
    expect(shown.trim()).toBe(answer);
    expect(await count(firefox.client, sidebar, "#transcript .msg.assistant")).toBe(1);
    expect(await count(firefox.client, sidebar, "#live .streaming")).toBe(0);
    await screenshot(firefox.client, sidebar, "streaming-2-recovered");
  });

  it("the Advanced kill switch sends new chats back to whole answers at once; Act never streams", async () => {
    const client = firefox.client;
    await evaluate(client, settingsPage, "document.getElementById('advanced').open = true");
    await click(client, settingsPage, "#stream-responses");
    await waitForText(client, settingsPage, "#agent-saved", "Saved");
    await screenshot(client, settingsPage, "streaming-3-kill-switch");
    const llm = await useResponses([{ text: answer }, { text: `Acted. ${answer}` }]);
    const sidebar = await openSidebarOnArticle();
    await ask(sidebar, "Spell the alphabet.");
    expect(await streamedTexts(sidebar, "Spell the alphabet.")).toEqual([]);
    await waitForText(client, sidebar, "#transcript .msg.assistant", answer);

    // Switch back on: Ask streams again, Act still does not.
    await click(client, settingsPage, "#stream-responses");
    await waitFor(() =>
      evaluate<boolean>(
        client,
        settingsPage,
        "browser.storage.local.get('settings').then((s) => s.settings.streamResponses)",
      ),
    );
    await click(client, sidebar, 'input[name="mode"][value="act"] + span');
    await fill(client, sidebar, "#input", "Spell it again.");
    await pressEnter(client, sidebar);
    expect(await streamedTexts(sidebar, "Spell it again.")).toEqual([]);
    await waitForText(client, sidebar, "#transcript", `Acted. ${answer}`);
    expect(llm.requests).toHaveLength(2);
  });
});

describe("always allow (Settings)", () => {
  it("lists the grants per site and capability, and revokes one", async () => {
    const client = firefox.client;
    await evaluate(
      client,
      settingsPage,
      `browser.storage.local.set({ "agent:permissions:always": {
        "interact https://shop.example": true,
        "navigate https://shop.example": true,
        "network https://api.example": true } })`,
    );
    // The page follows storage: grants given in a run appear without a reload.
    await waitForText(client, settingsPage, "#grant-list", "api.example");
    await waitFor(async () => (await count(client, settingsPage, "#grant-list li")) === 3);
    await screenshot(client, settingsPage, "grants-1-listed");
    await click(
      client,
      settingsPage,
      '#grant-list button[aria-label="Revoke Click and type on https://shop.example"]',
    );
    await waitFor(async () => (await count(client, settingsPage, "#grant-list li")) === 2);
    const stored = await evaluate<Record<string, boolean>>(
      client,
      settingsPage,
      "browser.storage.local.get('agent:permissions:always').then((s) => s['agent:permissions:always'])",
    );
    expect(stored).toEqual({ "navigate https://shop.example": true, "network https://api.example": true });
    await screenshot(client, settingsPage, "grants-2-revoked");
  });
});
