/**
 * Text verification and script uploaders on the add-on's port, through the installed add-on in
 * real Firefox (synthetic events; issue 23). The key-aware editor (fixtures/page/key-editor.html)
 * must end with exactly the multi-line text asked for, and its masked field must say it
 * reformatted, with its actual value, not `verified`. The script uploader
 * (fixtures/page/script-uploader.html) reads input.files on `change` and POSTs the file: the
 * server must receive the bytes of a file the run downloaded.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  type FixtureServer,
  nodesIn,
  refByName,
  setupFirefox,
  startFixtureServer,
  uploadSinkRoute,
  WITH_NODES,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADDON_PREFS, downloadPrefs } from "./addon-harness.js";
import { buildAddonWithProbe, openPortProbe, type PortProbe } from "./port-probe.js";

type Result = Record<string, unknown> & { success: boolean; error?: string };

let addon: Awaited<ReturnType<typeof buildAddonWithProbe>> | undefined;
let fixtures: FixtureServer;
let probe: PortProbe;
const downloadsDir = await mkdtemp(join(tmpdir(), "webbrain-typing-uploads-"));
/** Bodies the fixture server received on /upload-sink. */
const received: { url: string; body: string }[] = [];

beforeAll(async () => {
  addon = await buildAddonWithProbe();
  fixtures = await startFixtureServer({
    routes: {
      "/upload-sink": uploadSinkRoute(received),
    },
  });
});
afterAll(async () => {
  await fixtures?.close();
  await addon?.remove();
  await rm(downloadsDir, { recursive: true, force: true });
});

const firefox = setupFirefox({ prefs: { ...ADDON_PREFS, ...downloadPrefs(downloadsDir) } });

beforeAll(async () => {
  probe = await openPortProbe(firefox.client, addon!.dir);
});

let opened = 0;
/** A fixture page in a new tab: the port's tab id and the BiDi context. */
async function openTab(path: string): Promise<{ tab: string; context: string }> {
  const context = await firefox.newTab();
  const url = new URL(path, fixtures.origin);
  url.searchParams.set("case", String(++opened));
  await navigate(firefox.client, context, url.href);
  return { tab: await probe.tabIdOf(url.href), context };
}

function pageAction(tab: string, action: string, params: Record<string, unknown> = {}): Promise<Result> {
  return probe.call<Result>("pageAction", tab, action, params);
}

/** The ref of the element with this role and name, from a tree read's nodes. */
async function refOf(tab: string, role: string, name: string): Promise<number> {
  return refByName(nodesIn(await pageAction(tab, "get_accessibility_tree", WITH_NODES)), role, name);
}

describe("text verification with synthetic typing", () => {
  for (const text of ["- milk\n- eggs\n- bread", "if (ok) {\n  go();\n}"]) {
    it(`type_ax leaves exactly ${JSON.stringify(text)} in an editor that reacts to Enter`, async () => {
      const { tab, context } = await openTab("/page/key-editor.html");
      const typed = await pageAction(tab, "type_ax", {
        ref_id: await refOf(tab, "textbox", "Notes"),
        value: text,
      });
      expect(typed).toMatchObject({ success: true, verified: true, value: text });
      expect(await evaluate<string>(firefox.client, context, "document.getElementById('notes').value")).toBe(
        text,
      );
      expect(
        await evaluate<string>(firefox.client, context, "document.getElementById('notes-log').textContent"),
      ).toBe("input events: 1");
    });
  }

  it("a masked field reports the reformat and its actual value, not verified", async () => {
    const { tab } = await openTab("/page/key-editor.html");
    const typed = await pageAction(tab, "type_ax", {
      ref_id: await refOf(tab, "textbox", "Phone"),
      value: "5551234567",
    });
    expect(typed).toMatchObject({
      success: true,
      verified: false,
      reformatted: true,
      value: "(555) 123-4567",
    });
    expect(String(typed.note)).toContain('"5551234567" shows as "(555) 123-4567"');
  });
});

let report: { id: string } | undefined;
/**
 * report.txt downloaded by the run (what upload_file may send), once complete; downloaded once
 * (Firefox would name a second copy report(1).txt).
 */
async function downloadReport(): Promise<{ id: string }> {
  if (report) return report;
  const download = await probe.call<{ id: string }>("download", fixtures.url("/conformance/report.txt"));
  await waitFor(
    async () => {
      const listed = await probe.call<{ id: string; state: string }[]>("listDownloads");
      return listed.some((item) => item.id === download.id && item.state === "complete");
    },
    { timeoutMs: 15_000, message: "the download never completed" },
  );
  report = download;
  return download;
}

describe("script uploader", () => {
  it("a downloaded file reaches the server through the page's change listener and XHR", async () => {
    const download = await downloadReport();
    const { tab, context } = await openTab("/page/script-uploader.html");
    const uploaded = await probe.call<Result>("uploadFile", tab, {
      downloadId: download.id,
      selector: "#doc",
    });
    expect(uploaded).toMatchObject({ success: true, uploaded: "report.txt" });
    const log = () =>
      evaluate<string>(firefox.client, context, "document.getElementById('upload-log').textContent");
    await waitFor(async () => (await log()).includes("server got"), {
      timeoutMs: 10_000,
      message: "the page never reported its upload",
    });
    const served = await (await fetch(fixtures.url("/conformance/report.txt"))).text();
    expect(received).toEqual([{ url: "/upload-sink?name=report.txt&via=xhr", body: served }]);
    expect(await log()).toBe(
      `uploaded report.txt (${served.length} bytes) via xhr: server got ${served.length} bytes`,
    );
    expect(
      await evaluate<string>(firefox.client, context, "document.getElementById('events').textContent"),
    ).toBe("events: input change");
  });

  it("drop: true drops a downloaded file on a drop zone: the page's drop listener reads it and fetch POSTs it", async () => {
    const download = await downloadReport();
    const { tab, context } = await openTab("/page/script-uploader.html");
    received.length = 0;
    const refused = await probe.call<Result>("uploadFile", tab, {
      downloadId: download.id,
      selector: "h1",
      drop: true,
    });
    expect(refused).toMatchObject({
      success: false,
      error: expect.stringMatching(/does not take dropped files/),
    });
    const dropped = await probe.call<Result>("uploadFile", tab, {
      downloadId: download.id,
      selector: "#drop",
      drop: true,
    });
    expect(dropped).toMatchObject({ success: true, uploaded: "report.txt", dropped: true });
    const log = () =>
      evaluate<string>(firefox.client, context, "document.getElementById('upload-log').textContent");
    await waitFor(async () => (await log()).includes("server got"), {
      timeoutMs: 10_000,
      message: "the page never reported the dropped upload",
    });
    const served = await (await fetch(fixtures.url("/conformance/report.txt"))).text();
    expect(received).toEqual([{ url: "/upload-sink?name=report.txt&via=drop", body: served }]);
    expect(await log()).toBe(
      `uploaded report.txt (${served.length} bytes) via drop: server got ${served.length} bytes`,
    );
  });
});
