/**
 * Text verification and script uploaders on the runner's port, in real Firefox with trusted
 * input (issue 23). The key-aware editor (fixtures/page/key-editor.html) changes multi-line text
 * typed key by key; type_ax must still leave exactly the text asked for, and a masked field must
 * say it reformatted, with its actual value, not `verified`. The script uploader
 * (fixtures/page/script-uploader.html) reads input.files on `change` and POSTs the file: the
 * server must receive the bytes of a file the user allowed (--upload-dir).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FixtureServer,
  KEY,
  nodesIn,
  refByName,
  startFixtureServer,
  uploadSinkRoute,
  WITH_NODES,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserConnection, openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { loadPageScript } from "../src/port/page-script-source.js";
import { runnerLocalFilesFrom } from "../src/tools/local-files.js";

let server: FixtureServer;
let connection: BrowserConnection;
let port: BidiBrowserPort;
let tab: string;
let workDir: string;
/** Bodies the fixture server received on /upload-sink. */
const received: { url: string; body: string }[] = [];

const INVOICE = "invoice 42\nline 2: 3 x widget\n";

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "webbrain-typing-uploads-"));
  await writeFile(join(workDir, "invoice.txt"), INVOICE);
  server = await startFixtureServer({
    routes: {
      "/upload-sink": uploadSinkRoute(received),
    },
  });
  connection = await openBrowserConnection({});
  port = await BidiBrowserPort.open({
    client: connection.client,
    pageScript: await loadPageScript(),
    downloadsDir: join(workDir, "downloads"),
    ownsBrowser: true,
    localFiles: runnerLocalFilesFrom({ "upload-dir": [workDir] }),
  });
  tab = port.tabs.activeId!;
});

afterAll(async () => {
  port?.dispose();
  await connection?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** The ref of the element with this role and name, from a tree read's nodes. */
async function refOf(role: string, name: string): Promise<number> {
  return refByName(nodesIn(await port.pageAction(tab, "get_accessibility_tree", WITH_NODES)), role, name);
}

/** Evaluated in the page's own realm (not through the page layer). */
async function inPage(expression: string): Promise<string> {
  const result = await connection.client.send("script.evaluate", {
    expression,
    target: { context: tab },
    awaitPromise: false,
  });
  return result.type === "success" && result.result.type === "string" ? result.result.value : "";
}

describe("text verification with trusted typing", () => {
  const LIST = "- milk\n- eggs\n- bread";
  const CODE = "if (ok) {\n  go();\n}";

  it("the fixture editor does change multi-line text typed key by key", async () => {
    // Proves the fixture reacts to trusted keys, so the next test means something.
    await port.navigate(tab, server.url("/page/key-editor.html"));
    await port.pageAction(tab, "click_ax", { ref_id: await refOf("textbox", "Notes") });
    await connection.client.send("input.performActions", {
      context: tab,
      actions: [
        {
          type: "key",
          id: "kb",
          actions: [..."- x\ny"].flatMap((c) => {
            const value = c === "\n" ? KEY.enter : c;
            return [
              { type: "keyDown", value },
              { type: "keyUp", value },
            ];
          }),
        },
      ],
    });
    expect(await inPage("document.getElementById('notes').value")).toBe("- x\n- y");
  });

  for (const text of [LIST, CODE]) {
    it(`type_ax leaves exactly ${JSON.stringify(text)} in an editor that reacts to Enter`, async () => {
      await port.navigate(tab, server.url("/page/key-editor.html"));
      const typed = await port.pageAction(tab, "type_ax", {
        ref_id: await refOf("textbox", "Notes"),
        value: text,
      });
      expect(typed).toMatchObject({ success: true, verified: true, value: text, trusted: true });
      expect(String(typed.note)).toMatch(/inserted whole, as a paste/);
      expect(await inPage("document.getElementById('notes').value")).toBe(text);
      // The page's own input listener saw the insertion.
      expect(await inPage("document.getElementById('notes-log').textContent")).not.toBe("input events: 0");
    });
  }

  it("a masked field reports the reformat and its actual value, not verified", async () => {
    await port.navigate(tab, server.url("/page/key-editor.html"));
    const typed = await port.pageAction(tab, "type_ax", {
      ref_id: await refOf("textbox", "Phone"),
      value: "5551234567",
    });
    expect(typed).toMatchObject({
      success: true,
      verified: false,
      reformatted: true,
      value: "(555) 123-4567",
      trusted: true,
    });
    expect(String(typed.note)).toContain('"5551234567" shows as "(555) 123-4567"');
  });
});

describe("script uploader", () => {
  it("a file the user allowed reaches the server through the page's change listener and XHR", async () => {
    await port.navigate(tab, server.url("/page/script-uploader.html"));
    const uploaded = await port.uploadFile(tab, { selector: "#doc", path: join(workDir, "invoice.txt") });
    expect(uploaded).toMatchObject({ success: true, uploaded: "invoice.txt" });
    await waitFor(
      async () => (await inPage("document.getElementById('upload-log').textContent")).includes("server got"),
      {
        timeoutMs: 10_000,
        message: "the page never reported its upload",
      },
    );
    expect(await inPage("document.getElementById('upload-log').textContent")).toBe(
      `uploaded invoice.txt (${INVOICE.length} bytes) via xhr: server got ${INVOICE.length} bytes`,
    );
    expect(await inPage("document.getElementById('events').textContent")).toBe("events: input change");
    expect(received).toEqual([{ url: "/upload-sink?name=invoice.txt&via=xhr", body: INVOICE }]);
  });

  it("drop: true drops the file on a drop zone: the page's drop listener reads it and fetch POSTs it", async () => {
    await port.navigate(tab, server.url("/page/script-uploader.html"));
    received.length = 0;
    const path = join(workDir, "invoice.txt");
    const refused = await port.uploadFile(tab, { selector: "h1", path, drop: true });
    expect(refused).toMatchObject({
      success: false,
      error: expect.stringMatching(/does not take dropped files/),
    });
    const dropped = await port.uploadFile(tab, { selector: "#drop", path, drop: true });
    expect(dropped).toMatchObject({ success: true, uploaded: "invoice.txt", dropped: true, trusted: false });
    await waitFor(
      async () => (await inPage("document.getElementById('upload-log').textContent")).includes("server got"),
      { timeoutMs: 10_000, message: "the page never reported the dropped upload" },
    );
    expect(await inPage("document.getElementById('upload-log').textContent")).toBe(
      `uploaded invoice.txt (${INVOICE.length} bytes) via drop: server got ${INVOICE.length} bytes`,
    );
    expect(received).toEqual([{ url: "/upload-sink?name=invoice.txt&via=drop", body: INVOICE }]);
  });
});
