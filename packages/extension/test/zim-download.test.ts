/**
 * Downloading an offline archive in real Firefox: the user gives a URL in Settings -> Offline
 * Wikipedia; the fixture server serves the test ZIM with Range support and drops the connection
 * once mid-file, so the download resumes with a Range request, verifies the archive's MD5 and
 * the SHA-256 the user gave, installs it, and the Wikipedia skill answers a title lookup from it
 * with the live endpoint down. A corrupted copy is refused with a clear message and leaves
 * nothing installed. Enabling the skill (it is enabled from the start) downloads nothing. An
 * archive with xz clusters (testkit's zim-writer) is read in the add-on as well.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { evaluate } from "@webbrain/bidi";
import {
  type FixtureServer,
  type ScriptedLlm,
  setupFirefox,
  startFixtureServer,
  writeXzZim,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  click,
  fill,
  installAndOpenSettings,
  text,
  waitForText,
} from "./addon-harness.js";
import { askWikipediaSummary } from "./wikipedia-lookup.js";

const ZIM = join(dirname(fileURLToPath(import.meta.url)), "../../testkit/fixtures/zim/test-wikipedia.zim");
const ETAG = '"test-wikipedia-1"';

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
let llm: ScriptedLlm | undefined;
let archive = new Uint8Array();
let corrupt = new Uint8Array();
const xzArchive = writeXzZim([
  {
    namespace: "C",
    url: "Grace_Hopper",
    title: "Grace Hopper",
    mimeType: "text/html",
    body: "<html><body><h1>Grace Hopper</h1><p>Grace Brewster Hopper (1906–1992) was an American computer scientist and United States Navy rear admiral.</p></body></html>",
  },
  { namespace: "M", url: "Date", mimeType: "text/plain", body: "2026-12-01" },
  { namespace: "M", url: "Language", mimeType: "text/plain", body: "eng" },
  { namespace: "M", url: "Title", mimeType: "text/plain", body: "Test Wikipedia xz" },
]);
/** Each archive request: its path and Range header ("" when none). */
const requests: { path: string; range: string }[] = [];
let dropped = false;

/** Serves `bytes` with Range support; the first whole-file request of /zim/dropping.zim is cut mid-file. */
function serveArchive(bytes: () => Uint8Array, dropOnce: boolean) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const range = req.headers.range ?? "";
    requests.push({ path: req.url ?? "", range });
    const body = bytes();
    const match = /^bytes=(\d+)-$/.exec(range);
    const ifRange = req.headers["if-range"];
    if (match && (ifRange === undefined || ifRange === ETAG)) {
      const start = Number(match[1]);
      res
        .writeHead(206, {
          "content-type": "application/octet-stream",
          "content-length": body.length - start,
          "content-range": `bytes ${start}-${body.length - 1}/${body.length}`,
          "accept-ranges": "bytes",
          etag: ETAG,
        })
        .end(body.subarray(start));
      return;
    }
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": body.length,
      "accept-ranges": "bytes",
      etag: ETAG,
    });
    if (dropOnce && !dropped) {
      dropped = true;
      // Half the file reaches the browser, then the connection dies.
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => {
        setTimeout(() => req.socket.destroy(), 100);
      });
      return;
    }
    res.end(body);
  };
}

beforeAll(async () => {
  archive = new Uint8Array(await readFile(ZIM));
  corrupt = archive.slice();
  const middle = Math.floor(corrupt.length / 2);
  corrupt[middle] = (corrupt[middle] ?? 0) ^ 0xff;
  addon = await buildAddon();
  fixtures = await startFixtureServer({
    routes: {
      "/zim/dropping.zim": serveArchive(() => archive, true),
      "/zim/corrupt.zim": serveArchive(() => corrupt, false),
      "/zim/xz.zim": serveArchive(() => xzArchive, false),
    },
  });
});
afterAll(async () => {
  await llm?.close();
  await fixtures?.close();
  await addon?.remove();
});

const firefox = setupFirefox({ prefs: { ...ADDON_PREFS, "network.dns.localDomains": "en.wikipedia.org" } });
let settingsPage = "";

async function startDownload(url: string, sha256: string): Promise<void> {
  await fill(firefox.client, settingsPage, "#zim-url", url);
  if (sha256) await fill(firefox.client, settingsPage, "#zim-sha256", sha256);
  await click(firefox.client, settingsPage, "#zim-download-start");
}

describe("downloading an offline archive", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
  });

  it("downloads nothing until the user asks, though the Wikipedia skill is enabled", async () => {
    await waitForText(firefox.client, settingsPage, "#zim-archives", "No offline archive installed.");
    const skills = await evaluate<{ id: string; enabled: boolean }[]>(
      firefox.client,
      settingsPage,
      "browser.storage.local.get('customSkills').then((s) => s.customSkills ?? [])",
      { awaitPromise: true },
    );
    expect(skills.find((skill) => skill.id === "wikipedia")?.enabled).toBe(true);
    expect(requests).toEqual([]);
  });

  it("refuses a corrupted archive with a clear message and installs nothing", async () => {
    await startDownload(fixtures!.url("/zim/corrupt.zim"), "");
    await waitForText(firefox.client, settingsPage, "#zim-status", "corrupt", 30_000);
    expect(await text(firefox.client, settingsPage, "#zim-status")).toContain(
      "its MD5 checksum does not match the one stored in the file. It was not installed; download it again",
    );
    expect(await text(firefox.client, settingsPage, "#zim-archives")).toContain(
      "No offline archive installed.",
    );
    expect(await text(firefox.client, settingsPage, "#zim-downloads")).toBe("");
    const leftovers = await evaluate<string[]>(
      firefox.client,
      settingsPage,
      "navigator.storage.getDirectory().then(async (root) => { const names = []; for await (const name of root.keys()) names.push(name); return names; })",
      { awaitPromise: true },
    );
    expect(leftovers).toEqual([]);
  });

  it("resumes after a dropped connection with a Range request, verifies, and answers a title lookup", async () => {
    requests.length = 0;
    const sha256 = createHash("sha256").update(archive).digest("hex");
    await startDownload(fixtures!.url("/zim/dropping.zim"), sha256.toUpperCase());
    await waitForText(
      firefox.client,
      settingsPage,
      "#zim-status",
      "Downloaded, verified and installed “Test Wikipedia”",
      30_000,
    );
    expect(dropped).toBe(true);
    expect(requests[0]).toEqual({ path: "/zim/dropping.zim", range: "" });
    const resumed = requests.slice(1).find((request) => request.range !== "");
    expect(resumed?.range).toMatch(/^bytes=\d+-$/);
    const resumedAt = Number(/\d+/.exec(resumed!.range)?.[0]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThan(archive.length);
    await waitForText(
      firefox.client,
      settingsPage,
      "#zim-archives",
      /Test Wikipedia \(eng, \d{4}-\d{2}-\d{2}/,
    );
    const stored = await evaluate<number[]>(
      firefox.client,
      settingsPage,
      "navigator.storage.getDirectory().then(async (root) => { const sizes = []; for await (const handle of root.values()) sizes.push((await handle.getFile()).size); return sizes; })",
      { awaitPromise: true },
    );
    expect(stored).toEqual([archive.length]);

    const asked = await askWikipediaSummary(
      firefox,
      settingsPage,
      fixtures!.url("/extension/article.html"),
      "Lighthouse of Alexandria",
      "What was the Pharos?",
    );
    llm = asked.llm;
    const result = asked.result;
    expect(result).toMatch(/^\[wikipedia_summary ok\]/);
    expect(result).toContain("https://en.wikipedia.org/wiki/Lighthouse_of_Alexandria");
    expect(result).toContain("built by the Ptolemaic Kingdom");
    expect(result).toContain("offline Kiwix archive");
  });

  it("reads an archive whose clusters are xz-compressed", async () => {
    await startDownload(fixtures!.url("/zim/xz.zim"), "");
    await waitForText(firefox.client, settingsPage, "#zim-status", "installed “Test Wikipedia xz”", 30_000);
    await llm?.close();
    const asked = await askWikipediaSummary(
      firefox,
      settingsPage,
      `${fixtures!.url("/extension/article.html")}?xz=1`,
      "Grace Hopper",
      "Who was Grace Hopper?",
    );
    llm = asked.llm;
    const result = asked.result;
    expect(result).toMatch(/^\[wikipedia_summary ok\]/);
    expect(result).toContain("https://en.wikipedia.org/wiki/Grace_Hopper");
    expect(result).toContain("American computer scientist");
    expect(result).toContain("Test Wikipedia xz");
  });
});
