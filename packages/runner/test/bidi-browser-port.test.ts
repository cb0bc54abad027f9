/**
 * The BiDi side of the runner's BrowserPort in real headless Firefox: sandbox injection,
 * dialogs, uploads, screenshots, tabs and navigation. The page layer is replaced by a tiny
 * probe script here on purpose: these tests are about how the runner reaches the page, and the
 * probe reports what it can see (closed shadow roots, the page's own globals).
 */
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FixtureServer, startFixtureServer, waitFor } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserConnection, openBrowserConnection } from "../src/browser/browser-connection.js";
import { pngSize } from "../src/browser/screenshots.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";

/** Stands in for @webbrain/page: answers what the sandbox sees, in the page wire envelope. */
const PROBE_SCRIPT = `globalThis.__webbrainPage = {
  version: "probe",
  handle: async (action, params) => {
    if (action === "closed_shadow_button") {
      const host = document.querySelector("closed-widget");
      return { success: true, details: { shadowRootVisibleToPage: host.shadowRoot !== null }, runner: { element: host } };
    }
    if (action === "status")
      return { success: true, details: { text: document.getElementById("status")?.textContent ?? "" } };
    if (action === "throw") throw new Error("probe failure");
    return { success: true, details: { action, params, installs: ++globalThis.__probeInstalls } };
  },
};
globalThis.__probeInstalls = globalThis.__probeInstalls ?? 0;`;

let server: FixtureServer;
let connection: BrowserConnection;
let port: BidiBrowserPort;
let tab: string;
let workDir: string;

beforeAll(async () => {
  server = await startFixtureServer();
  connection = await openBrowserConnection({});
  workDir = await mkdtemp(join(tmpdir(), "webbrain-port-test-"));
  port = await BidiBrowserPort.open({
    client: connection.client,
    pageScript: PROBE_SCRIPT,
    downloadsDir: join(workDir, "downloads"),
    ownsBrowser: true,
    // upload_file takes local paths only from folders the user gave (--upload-dir).
    localFiles: { allowFileUrls: false, uploadDirs: [await realpath(workDir)], attachments: [] },
  });
  tab = port.tabs.activeId!;
});

afterAll(async () => {
  port?.dispose();
  await connection?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** The fixture's #status text once it matches (the upload handler reads the file asynchronously). */
async function statusMatching(pattern: RegExp): Promise<string> {
  return await waitFor<string>(
    async () => {
      const text = String((await port.pageAction(tab, "status" as never, {})).text);
      return pattern.test(text) ? text : "";
    },
    { message: `status matching ${pattern}` },
  );
}

async function pressCenterOf(id: string): Promise<void> {
  const point = (await port.channel.callWith(
    tab,
    `(id) => { const r = document.getElementById(id).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }`,
    [{ type: "string", value: id }],
  )) as number[];
  await connection.client.send("input.performActions", {
    context: tab,
    actions: [
      {
        type: "pointer",
        id: "test-mouse",
        parameters: { pointerType: "mouse" },
        actions: [
          { type: "pointerMove", x: Math.round(point[0]!), y: Math.round(point[1]!) },
          { type: "pointerDown", button: 0 },
          { type: "pointerUp", button: 0 },
        ],
      },
    ],
  });
}

describe("BidiBrowserPort over real Firefox", () => {
  it("works in a tab of its own, and navigates with the URL and title in the result", async () => {
    const tabs = await port.listTabs();
    expect(tabs.filter((t) => t.active).map((t) => t.id)).toEqual([tab]);
    const result = await port.navigate(tab, server.url("/runner/browser-features.html"));
    expect(result).toMatchObject({ success: true, title: "Browser features" });
    expect(String(result.url)).toContain("/runner/browser-features.html");
  });

  it("runs the page script in a sandbox the page cannot see, reinstalled on every document", async () => {
    await port.navigate(tab, server.url("/runner/browser-features.html"));
    const first = await port.pageAction(tab, "read_page", { x: 1 });
    expect(first).toMatchObject({ success: true, action: "read_page", params: { x: 1 }, installs: 1 });
    const pageSees = await connection.client.send("script.evaluate", {
      expression: "typeof window.__webbrainPage",
      target: { context: tab },
      awaitPromise: false,
    });
    expect(pageSees).toMatchObject({ type: "success", result: { type: "string", value: "undefined" } });
    await port.navigate(tab, server.url("/runner/trusted-only.html"));
    expect(await port.pageAction(tab, "read_page", {})).toMatchObject({ installs: 1 });
  });

  it("injects on demand into a document that existed before the preload script", async () => {
    const fresh = await BidiBrowserPort.open({
      client: connection.client,
      pageScript: PROBE_SCRIPT.replace('"probe"', '"probe-2"'),
      downloadsDir: join(workDir, "downloads-2"),
    });
    try {
      // The tab was loaded under the first port's preload; the second script is not there yet.
      const result = await fresh.channel.call(tab, "read_page", {});
      expect(result).toMatchObject({ success: true });
    } finally {
      fresh.dispose();
    }
  });

  it("reaches into closed shadow roots and strips element handles from results", async () => {
    await port.navigate(tab, server.url("/runner/browser-features.html"));
    const raw = await port.channel.call(tab, "closed_shadow_button", {}, { keepNodes: true });
    expect(raw).toMatchObject({
      success: true,
      details: { shadowRootVisibleToPage: false },
      runner: { element: { sharedId: expect.any(String) } },
    });
    // Without keepNodes the page's nodes stay in the page (the click path never needs them).
    expect(await port.channel.call(tab, "closed_shadow_button", {})).toEqual({
      success: true,
      details: { shadowRootVisibleToPage: false },
      runner: {},
    });
    const result = await port.pageAction(tab, "closed_shadow_button" as never, {});
    expect(result).toEqual({ success: true, shadowRootVisibleToPage: false });
  });

  it("turns a throwing page script into a failed result, not a crash", async () => {
    const result = await port.pageAction(tab, "throw" as never, {});
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/probe failure/);
  });

  it("answers alert, confirm and prompt at once and reports them with the next result", async () => {
    await port.navigate(tab, server.url("/runner/browser-features.html"));
    await pressCenterOf("alert");
    await pressCenterOf("confirm");
    await pressCenterOf("prompt");
    const result = await port.pageAction(tab, "status" as never, {});
    expect(result.text).toBe("renamed to draft");
    expect(result.dialogs).toEqual([
      'alert "Hello from the page" -> accepted',
      'confirm "Delete the draft?" -> accepted',
      'prompt "New name?" -> accepted with "draft"',
    ]);
    // Reported once.
    expect((await port.pageAction(tab, "status" as never, {})).dialogs).toBeUndefined();
  });

  it("dismisses confirms when the policy says so", async () => {
    port.dialogs.setPolicy({ confirm: "dismiss", prompt: "dismiss" });
    try {
      await port.navigate(tab, server.url("/runner/browser-features.html"));
      await pressCenterOf("confirm");
      const result = await port.pageAction(tab, "status" as never, {});
      expect(result.text).toBe("confirm answered false");
      expect(result.dialogs).toEqual(['confirm "Delete the draft?" -> dismissed']);
    } finally {
      port.dialogs.setPolicy({ confirm: "accept", prompt: "accept" });
    }
  });

  it("uploads a local file and a previous download through input.setFiles", async () => {
    await port.navigate(tab, server.url("/runner/browser-features.html"));
    const file = join(workDir, "notes.txt");
    await writeFile(file, "hello upload\n");
    expect(await port.uploadFile(tab, { selector: "#upload", path: file })).toEqual({
      success: true,
      uploaded: "notes.txt",
    });
    expect(await statusMatching(/^uploaded notes/)).toBe("uploaded notes.txt: hello upload");

    const download = await port.download(server.url("/runner/frame-child.html"), "child.html");
    expect(download).toMatchObject({ filename: "child.html", state: "complete" });
    expect((await port.readDownload(download.id)).content).toContain("Inside frame");
    expect(await port.uploadFile(tab, { selector: "#upload", downloadId: download.id })).toMatchObject({
      success: true,
    });
    expect(await statusMatching(/^uploaded child/)).toMatch(/^uploaded child\.html: <!doctype html>/);

    expect(await port.uploadFile(tab, { selector: "#nothing", path: file })).toEqual({
      success: false,
      error: "No element matches the selector #nothing.",
    });
    expect(
      (await port.uploadFile(tab, { selector: "#upload", path: join(workDir, "missing.txt") })).error,
    ).toMatch(/Cannot upload: .*ENOENT/);
  });

  it("captures the viewport and the whole page as PNG", async () => {
    await port.navigate(tab, server.url("/runner/browser-features.html"));
    const viewport = await port.screenshot(tab);
    const full = await port.screenshot(tab, { full: true });
    expect(viewport.mimeType).toBe("image/png");
    expect(pngSize(Buffer.from(viewport.dataBase64, "base64"))).toEqual({
      width: viewport.width,
      height: viewport.height,
    });
    // The fixture is taller than the viewport (2600 px of content).
    expect(full.height).toBeGreaterThan(2600);
    expect(full.height!).toBeGreaterThan(viewport.height!);
  });

  it("reports navigation failures as results and walks history", async () => {
    const bad = await port.navigate(tab, "not a url at all");
    expect(bad).toEqual({ success: false, error: expect.stringMatching(/is not a URL/) });
    const refused = await port.navigate(tab, "http://127.0.0.1:1/");
    expect(refused.success).toBe(false);
    expect(refused.error).toMatch(/Could not open http:\/\/127\.0\.0\.1:1\//);

    await port.navigate(tab, server.url("/runner/browser-features.html"));
    await port.navigate(tab, server.url("/runner/trusted-only.html"));
    expect(await port.goBack(tab)).toMatchObject({ success: true, title: "Browser features" });
    expect(await port.goForward(tab)).toMatchObject({ success: true, title: "Trusted input only" });
  });

  it("opens and lists background tabs, and fails clearly on a closed one", async () => {
    const opened = await port.newTab(server.url("/runner/frame-child.html"));
    expect(opened).toMatchObject({ title: "Partner widget", active: false });
    expect((await port.listTabs()).map((t) => t.id)).toContain(opened.id);
    await port.closeTab(opened.id);
    await expect(port.pageAction(opened.id, "read_page", {})).rejects.toThrow(/is closed/);
    expect((await port.activeTab())?.id).toBe(tab);
  });

  it("lists cross-origin frames as their own contexts", async () => {
    const child = `${server.crossOrigin}/runner/frame-child.html`;
    await port.navigate(
      tab,
      `${server.url("/runner/browser-features.html")}?frame=${encodeURIComponent(child)}`,
    );
    const frames = await port.tabs.frames(tab);
    expect(frames.map((f) => f.url)).toContain(child);
    const result = await port.pageAction(tab, "get_frames", {});
    expect(result.contexts).toEqual([{ url: child, depth: 1 }]);
  });
});
