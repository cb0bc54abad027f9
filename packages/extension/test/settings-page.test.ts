/**
 * The settings page in real Firefox: it opens by itself on first install, a person adds a
 * provider pointing at a scripted LLM server, tests the connection, saves it, and a server
 * that is down gets a clear message. Driven with trusted input only.
 */
import { evaluate } from "@webbrain/bidi";
import { type ScriptedLlm, setupFirefox, startScriptedLlm, waitFor } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  click,
  count,
  fill,
  installAndOpenSettings,
  screenshot,
  setViewport,
  text,
  waitForText,
} from "./addon-harness.js";

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let llm: ScriptedLlm | undefined;
beforeAll(async () => {
  addon = await buildAddon();
  llm = await startScriptedLlm({ dialect: "openai-chat", script: [], models: ["scripted-1", "other-model"] });
});
afterAll(async () => {
  await llm?.close();
  await addon?.remove();
});

const firefox = setupFirefox({ prefs: ADDON_PREFS });

describe("settings page", () => {
  let settings = "";

  it("opens by itself on first install, with a welcome and llama.cpp as the first preset", async () => {
    settings = await installAndOpenSettings(firefox.client, addon!.dir);
    // The page shows the welcome only when opened for a first install (settings.html?welcome=1).
    await waitForText(firefox.client, settings, "#welcome:not([hidden])", "Welcome");
    expect(await text(firefox.client, settings, "#preset option:first-child")).toBe("llama.cpp (local)");
    await setViewport(firefox.client, settings, 900, 900);
    await screenshot(firefox.client, settings, "settings-1-first-install");
  });

  it("adds a provider, tests the connection with a clear result, and saves it", async () => {
    const client = firefox.client;
    await click(client, settings, "#add-provider");
    await waitForText(client, settings, "#editor-heading", "New provider");
    await fill(client, settings, "#p-label", "Scripted llama");
    await fill(client, settings, "#p-baseUrl", llm!.baseUrl);
    await fill(client, settings, "#p-model", "scripted-1");
    await click(client, settings, "#test-connection");
    const result = await waitForText(client, settings, "#test-result", "is available");
    expect(result).toContain(`Connected to ${llm!.baseUrl}`);
    expect(await evaluate(client, settings, "document.getElementById('test-result').className")).toContain(
      "ok",
    );
    expect(llm!.otherRequests.map((r) => `${r.method} ${r.path}`)).toContain("GET /v1/models");
    await screenshot(client, settings, "settings-2-test-connection-ok");

    await click(client, settings, "#save-provider");
    await waitForText(client, settings, "#provider-list", "Scripted llama");
    expect(await text(client, settings, "#provider-list")).toContain("in use");
    expect(await evaluate(client, settings, "document.getElementById('editor').hidden")).toBe(true);
    const stored = await evaluate<{ providers: { baseUrl: string; model: string }[] }>(
      client,
      settings,
      "browser.storage.local.get('settings').then((s) => s.settings)",
    );
    expect(stored.providers).toEqual([
      expect.objectContaining({ baseUrl: llm!.baseUrl, model: "scripted-1" }),
    ]);
    await screenshot(client, settings, "settings-3-provider-saved");
  });

  it("says clearly when the server is down, and refuses to save a malformed URL", async () => {
    const client = firefox.client;
    await click(client, settings, "#add-provider");
    await fill(client, settings, "#p-baseUrl", "http://127.0.0.1:9/v1");
    await click(client, settings, "#test-connection");
    const down = await waitForText(client, settings, "#test-result", "Could not reach");
    expect(down).toContain("http://127.0.0.1:9/v1/models");
    expect(down).toContain("Check that the server is running");
    await screenshot(client, settings, "settings-4-server-down");

    await fill(client, settings, "#p-baseUrl", "not a url");
    await click(client, settings, "#save-provider");
    await waitForText(client, settings, "#form-errors", "Enter a full URL");
    expect(
      await evaluate(client, settings, "document.getElementById('p-baseUrl').getAttribute('aria-invalid')"),
    ).toBe("true");
    expect(await count(client, settings, "#provider-list li")).toBe(1);
    await screenshot(client, settings, "settings-5-invalid-url");
    await click(client, settings, "#cancel-edit");
  });

  it("saves agent settings and fits a narrow window", async () => {
    const client = firefox.client;
    await fill(client, settings, "#max-steps", "40");
    await click(client, settings, "#plan-before-act");
    await waitForText(client, settings, "#agent-saved", "Saved");
    await click(client, settings, 'input[name="verbose"][value="verbose"]');
    // The radio saves on change, after the click returns: read storage until that write is there.
    const stored = await waitFor(
      async () => {
        const value = await evaluate<{ maxSteps: number; planBeforeAct: boolean; verbose: string }>(
          client,
          settings,
          "browser.storage.local.get('settings').then((s) => s.settings)",
        );
        return value.verbose === "verbose" ? value : undefined;
      },
      { message: "the verbose choice never reached storage" },
    );
    expect(stored).toMatchObject({ maxSteps: 40, planBeforeAct: true, verbose: "verbose" });
    await setViewport(client, settings, 360, 900);
    const overflow = await evaluate<number>(
      client,
      settings,
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    expect(overflow).toBe(0);
    await screenshot(client, settings, "settings-6-narrow");
  });
});
