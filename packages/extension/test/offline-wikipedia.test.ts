/**
 * Offline Wikipedia in real Firefox: the user installs a Kiwix archive (the test ZIM made with
 * zimwriterfs) in Settings; with the live Wikipedia endpoint down, the packaged Wikipedia
 * skill's title lookup is answered from the archive, with the canonical URL, language, archive
 * date and license, wrapped as untrusted.
 *
 * "Down" is made certain rather than assumed: `network.dns.localDomains` points
 * en.wikipedia.org at 127.0.0.1, where nothing listens on 443.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FixtureServer, type ScriptedLlm, setupFirefox, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  chooseFile,
  installAndOpenSettings,
  screenshotOf,
  setViewport,
  waitForText,
} from "./addon-harness.js";
import { askWikipediaSummary } from "./wikipedia-lookup.js";

const ZIM = join(dirname(fileURLToPath(import.meta.url)), "../../testkit/fixtures/zim/test-wikipedia.zim");

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
let llm: ScriptedLlm | undefined;

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await llm?.close();
  await fixtures?.close();
  await addon?.remove();
});

const firefox = setupFirefox({ prefs: { ...ADDON_PREFS, "network.dns.localDomains": "en.wikipedia.org" } });
let settingsPage = "";

describe("offline Wikipedia", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
    await setViewport(firefox.client, settingsPage, 360, 900);
  });

  it("nothing is installed until the user picks an archive", async () => {
    await waitForText(firefox.client, settingsPage, "#zim-archives", "No offline archive installed.");
  });

  it("answers a title lookup from an installed ZIM while the live endpoint is down", async () => {
    await chooseFile(firefox.client, settingsPage, "#zim-file", ZIM);
    await waitForText(firefox.client, settingsPage, "#zim-status", "Installed “Test Wikipedia”", 30_000);
    await waitForText(
      firefox.client,
      settingsPage,
      "#zim-archives",
      /Test Wikipedia \(eng, \d{4}-\d{2}-\d{2}/,
    );
    await screenshotOf(firefox.client, settingsPage, "#offline-archives", "zim-1-archive-installed");

    const asked = await askWikipediaSummary(
      firefox,
      settingsPage,
      fixtures!.url("/extension/article.html"),
      "Ada Lovelace",
      "Who was Ada Lovelace?",
    );
    llm = asked.llm;
    const result = asked.result;
    expect(result).toMatch(/^\[wikipedia_summary ok\]/);
    expect(result).toContain(
      '<untrusted source="skill wikipedia https://en.wikipedia.org/wiki/Ada_Lovelace"',
    );
    expect(result).toContain("Augusta Ada King, Countess of Lovelace");
    expect(result).toContain("offline Kiwix archive");
    expect(result).toMatch(/archive_date\\?":\\?"\d{4}-\d{2}-\d{2}/);
    expect(result).toContain("eng");
    expect(result).toContain("CC BY-SA");
  });
});
