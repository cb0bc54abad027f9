/**
 * Watching a run back, with the CLI's main (asked in this process, run-cli.ts runMain; the bin
 * itself is tested in cli-process.test.ts) and real headless Firefox: `webbrain run --trace
 * --trace-shots` records a scripted model filling the order form with a small JPEG and the
 * acted-on element's box per step; `webbrain trace show --html` writes the filmstrip, which
 * Firefox opens from the file and shows every step of (each frame picked in turn, the box drawn
 * where the trace says, nothing loaded from anywhere); a format 1 trace still shows. Prints
 * the storage per screenshot step for the note.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type TraceRecord, type TraceToolCall, traceFilmstripHtml } from "@webbrain/agent";
import { connectBidi } from "@webbrain/bidi";
import {
  adaOrderCalls,
  type FilmstripView,
  type FixtureServer,
  lastToolResultText,
  readFilmstrip,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runMain } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 180_000;
const SHOT_CAP_KB = 60;
/** A JPEG's base64 starts with the SOI marker FF D8 FF. */
const JPEG_BASE64_START = "/9j/";

let server: FixtureServer;
let workDir: string;
let llm: ScriptedLlm | undefined;
const firefox = useCliFirefox();

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/api/orders": (_req, res) => {
        res.writeHead(201, { "content-type": "application/json" });
        res.end('{"ok":true}');
      },
    },
  });
  workDir = await mkdtemp(join(tmpdir(), "webbrain-filmstrip-test-"));
});

afterAll(async () => {
  await llm?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Opens the filmstrip file in Firefox and reads what it shows (testkit's readFilmstrip). */
async function viewFilmstrip(path: string): Promise<FilmstripView> {
  const session = await connectBidi(firefox.wsEndpoint);
  try {
    const { client } = session;
    const tree = await client.send("browsingContext.getTree", { maxDepth: 0 });
    const context = tree.contexts[0]!.context;
    await client.send("browsingContext.navigate", {
      context,
      url: pathToFileURL(path).href,
      wait: "complete",
    });
    return await readFilmstrip(client, context);
  } finally {
    await session.close();
  }
}

function readRecords(text: string): TraceRecord[] {
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as TraceRecord);
}

describe("watching a run back", () => {
  const tracePath = () => join(workDir, "order.jsonl");

  it(
    "records a JPEG and the action's box per step, and the filmstrip shows every step in Firefox",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
          (req) => ({ toolCalls: [...adaOrderCalls(lastToolResultText(req))] }),
          { toolCalls: [{ name: "done", arguments: { summary: "Ordered 3 for Ada." } }] },
        ],
      });
      const run = await runMain([
        "run",
        "order 3 for Ada Lovelace, ada@example.com",
        "--url",
        server.url("/workflow/order-v1.html"),
        "--base-url",
        llm.baseUrl,
        "--trace",
        tracePath(),
        "--trace-shots",
        String(SHOT_CAP_KB),
        ...firefox.connectArgs(),
      ]);
      expect(run.code, run.stderr).toBe(0);

      const records = readRecords(await readFile(tracePath(), "utf8"));
      expect(records.every((r) => r.v === 2)).toBe(true);
      expect(records[0]).toMatchObject({ type: "run_start", shots: { maxBytes: SHOT_CAP_KB * 1024 } });
      const calls = records.filter((r): r is TraceToolCall => r.type === "tool_call");
      expect(calls.map((c) => c.name)).toEqual([
        "get_accessibility_tree",
        "type_ax",
        "type_ax",
        "type_ax",
        "click_ax",
        "done",
      ]);
      for (const call of calls) {
        expect(call.shot, call.name).toMatchObject({ mimeType: "image/jpeg", viewport: expect.any(Object) });
        expect(call.shot!.dataBase64.startsWith(JPEG_BASE64_START)).toBe(true);
        expect(call.shot!.bytes).toBeLessThanOrEqual(SHOT_CAP_KB * 1024);
        expect(call.shot!.bytes).toBe(Buffer.from(call.shot!.dataBase64, "base64").length);
      }
      // The acted-on elements have boxes; the tree read and `done` act on none.
      const acted = calls.filter((c) => c.name === "type_ax" || c.name === "click_ax");
      for (const call of acted) expect(call.shot!.box!.width, call.name).toBeGreaterThan(0);
      expect(calls[0]!.shot!.box).toBeUndefined();
      const perStep = calls.reduce((sum, c) => sum + c.shot!.bytes, 0) / calls.length;
      console.log(
        `storage per screenshot step: ${Math.round(perStep)} bytes on average (${calls.length} steps, JPEG, cap ${SHOT_CAP_KB} KB, viewport ${calls[0]!.shot!.viewport!.width}x${calls[0]!.shot!.viewport!.height}); trace file ${(await readFile(tracePath())).length} bytes`,
      );

      const htmlPath = join(workDir, "order.html");
      const show = await runMain(["trace", "show", tracePath(), "--html", htmlPath]);
      expect(show.code, show.stderr).toBe(0);
      // The runner writes exactly what the add-on's traces page shows and exports.
      expect(await readFile(htmlPath, "utf8")).toBe(traceFilmstripHtml(records));

      const unwritable = await runMain([
        "trace",
        "show",
        tracePath(),
        "--html",
        join(workDir, "no-such-dir", "x.html"),
      ]);
      expect(unwritable.code).toBe(2);
      expect(unwritable.stderr).toContain("cannot write there");

      const view = await viewFilmstrip(htmlPath);
      const frames = calls.length + 1;
      expect(view).toMatchObject({ frames, scripts: 0, loads: 0, imagesDecoded: true });
      expect(view.picked.map((p) => p.shown)).toEqual(
        Array.from({ length: frames }, (_, i) => [`frame-${i + 1}`]),
      );
      expect(view.picked.map((p) => p.heading.replace(/ \S+ s$/, ""))).toEqual(
        Array.from({ length: frames }, (_, i) => `Step ${i + 1} of ${frames}`),
      );
      // Each acted-on element's box is drawn at the share of the screenshot the trace says.
      calls.forEach((call, i) => {
        const drawn = view.picked[i]!.box;
        const { box, viewport } = call.shot!;
        if (!box) {
          expect(drawn).toBeUndefined();
          return;
        }
        expect(drawn!.left).toBeCloseTo(box.x / viewport!.width, 2);
        expect(drawn!.top).toBeCloseTo(box.y / viewport!.height, 2);
        expect(drawn!.width).toBeCloseTo(box.width / viewport!.width, 2);
      });
      expect(view.picked[1]!.typed).toBe('typed: "Ada Lovelace"');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it("shows a format 1 trace (no screenshots) with every step", async () => {
    const v1 = readRecords(await readFile(tracePath(), "utf8")).map((record) => {
      const { shot: _shot, shots: _shots, ...rest } = record as TraceToolCall & { shots?: unknown };
      return { ...rest, v: 1 };
    });
    const v1Path = join(workDir, "old.jsonl");
    await writeFile(v1Path, v1.map((r) => JSON.stringify(r)).join("\n"));
    const show = await runMain(["trace", "show", v1Path]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/click_ax \{"ref_id":\d+\} ok/);
    expect(show.stdout).not.toContain("step screenshot");

    const htmlPath = join(workDir, "old.html");
    const html = await runMain(["trace", "show", v1Path, "--html", htmlPath]);
    expect(html.code, html.stderr).toBe(0);
    const view = await viewFilmstrip(htmlPath);
    expect(view.frames).toBe(7);
    expect(view.picked.map((p) => p.shown)).toEqual(Array.from({ length: 7 }, (_, i) => [`frame-${i + 1}`]));
    expect(view.picked.every((p) => p.box === undefined)).toBe(true);
  });
});
