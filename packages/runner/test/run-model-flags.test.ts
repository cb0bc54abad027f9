/**
 * `webbrain run`'s model flags end to end: --vision (what images the model gets),
 * --request-timeout (a model that never answers), --context-window (when the agent summarizes).
 * The real bin, one shared headless Firefox (--connect), scripted LLM servers over HTTP that
 * record every request.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FixtureServer,
  imageCount,
  type RecordedRequest,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
  toolNames,
  userTexts,
  writeTextPdf,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runCli, runMain } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 120_000;

let server: FixtureServer;
const firefox = useCliFirefox();
let llm: ScriptedLlm | undefined;

/** About 1,200 characters of page text, so a few reads outgrow a small context window. */
const LONG_TEXT = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} of the lamp catalogue.`).join(" ");

/** A 1x1 PNG. */
const TINY_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const html = (body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(`<!doctype html><html><head><title>Page</title></head><body>${body}</body></html>`);
};

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/shop": html('<h1>Lamps</h1><button id="buy">Buy</button>'),
      "/long": html(`<h1>Catalogue</h1><p>${LONG_TEXT}</p>`),
    },
  });
});

afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

afterAll(async () => {
  await server?.close();
});

const done = { toolCalls: [{ name: "done", arguments: { summary: "Looked at the page." } }] };

/**
 * `webbrain run` on the file's Firefox, asked of main in this process (run-cli.ts runMain): what
 * these tests check is what the run sends the model and prints, not the process around it
 * (cli-process.test.ts and run-command.test.ts test the bin).
 */
function run(args: string[], path = "/shop") {
  if (!llm) throw new Error("start the scripted LLM first");
  return runMain([
    "run",
    "look at the page",
    "--url",
    server.url(path),
    "--base-url",
    llm.baseUrl,
    "--model",
    "scripted-1",
    "--json",
    ...args,
    ...firefox.connectArgs(),
  ]);
}

describe("webbrain run --vision", () => {
  it(
    "on: the first request carries a screenshot and offers the screenshot tool; an action is followed by one",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [{ toolCalls: [{ name: "click", arguments: { selector: "#buy" } }] }, done],
      });
      const result = await run(["--vision", "on", "--tier", "mid"]);
      expect(result.code, result.stderr).toBe(0);
      const [first, second] = llm.requests as [RecordedRequest, RecordedRequest];
      expect(imageCount(first)).toBe(1);
      expect(toolNames(first)).toContain("screenshot");
      // The screenshot after the click (the add-on's default for vision models).
      expect(imageCount(second)).toBe(2);
      expect(result.stderr).toContain("(images on)");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "off: no image anywhere and no screenshot tool, even when the server says the model takes images",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        modelInfo: { capabilities: ["completion", "vision"] },
        script: [{ toolCalls: [{ name: "click", arguments: { selector: "#buy" } }] }, done],
      });
      const result = await run(["--vision", "off", "--tier", "mid"]);
      expect(result.code, result.stderr).toBe(0);
      expect(llm.requests).toHaveLength(2);
      for (const request of llm.requests) {
        expect(imageCount(request)).toBe(0);
        expect(toolNames(request)).not.toContain("screenshot");
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "auto (the default): images when the server's model info lists vision, none when it does not",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        modelInfo: { capabilities: ["completion", "vision"] },
        script: [done],
      });
      const said = await run([]);
      expect(said.code, said.stderr).toBe(0);
      expect(imageCount(llm.requests[0] as RecordedRequest)).toBe(1);
      await llm.close();

      llm = await startScriptedLlm({ dialect: "openai-chat", script: [done] });
      const silent = await run([]);
      expect(silent.code, silent.stderr).toBe(0);
      expect(imageCount(llm.requests[0] as RecordedRequest)).toBe(0);
      expect(toolNames(llm.requests[0] as RecordedRequest)).not.toContain("screenshot");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe("bad model flag values", () => {
  it.each([
    [["--request-timeout", "0"], "--request-timeout must be at least 5 (got 0)"],
    [["--request-timeout", "99999"], "--request-timeout must be at most 3600 (got 99999)"],
    [["--request-timeout", "slow"], '--request-timeout needs a whole number (got "slow")'],
    [["--context-window", "10"], "--context-window must be at least 1000 (got 10)"],
    [["--vision", "yes"], '--vision must be one of on, off, auto (got "yes")'],
  ])("%j is a usage error (exit 2) before any model or Firefox is asked", async (flags, message) => {
    // Nothing listens here: a run that got past the flags would fail differently (exit 3).
    // In this process (run-cli.ts runMain): what is checked is main's answer, not the process.
    const result = await runMain(["run", "look", "--base-url", "http://127.0.0.1:9", ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe("webbrain run --request-timeout", () => {
  it(
    "a model that never answers ends the run after the given seconds with an error that says so",
    async () => {
      llm = await startScriptedLlm({ dialect: "openai-chat", script: [{ fail: "hang" }] });
      const result = await run(["--request-timeout", "5"]);
      expect(result.code).toBe(1);
      const summary = JSON.parse(result.stdout) as {
        status: string;
        error?: { kind: string; message: string };
      };
      expect(summary.status).toBe("error");
      expect(summary.error?.kind).toBe("provider_timeout");
      expect(summary.error?.message).toContain("did not answer within 5 s");
      expect(result.stderr).toContain("did not answer within 5 s");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe("webbrain run --context-window", () => {
  /** Ten reads of the long page, then done; a request without tools (the summarizer) gets a summary. */
  function readingScript(): Parameters<typeof startScriptedLlm>[0]["script"] {
    let reads = 0;
    const step = (request: RecordedRequest) => {
      if (toolNames(request).length === 0) return { text: "The catalogue was read several times." };
      if (reads++ < 10) return { toolCalls: [{ name: "read_page", arguments: {} }] };
      return done;
    };
    return Array.from({ length: 16 }, () => step);
  }
  const summarized = (requests: readonly RecordedRequest[]) =>
    requests.some((request) =>
      userTexts(request).some((text) => text.includes("[Summary of earlier steps]")),
    );

  it(
    "a small window makes the agent summarize older steps; the default window does not for the same run",
    async () => {
      llm = await startScriptedLlm({ dialect: "openai-chat", script: readingScript() });
      const small = await run(["--context-window", "1000"], "/long");
      expect(small.code, small.stderr).toBe(0);
      expect(summarized(llm.requests)).toBe(true);
      await llm.close();

      llm = await startScriptedLlm({ dialect: "openai-chat", script: readingScript() });
      const standard = await run([], "/long");
      expect(standard.code, standard.stderr).toBe(0);
      expect(summarized(llm.requests)).toBe(false);
      expect(llm.requests).toHaveLength(11);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe("webbrain run --include", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "webbrain-include-"));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(
    "a text file's content reaches the model's first message, fenced by its name",
    async () => {
      const notes = join(dir, "notes.md");
      await writeFile(notes, "The lamp code is ORBIT-7731.\n");
      llm = await startScriptedLlm({ dialect: "openai-chat", script: [done] });
      const result = await run(["--include", notes]);
      expect(result.code, result.stderr).toBe(0);
      const first = userTexts(llm.requests[0] as RecordedRequest).join("\n");
      expect(first).toContain('<attached_file name="notes.md">\nThe lamp code is ORBIT-7731.');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "a PDF's text reaches the model's first message (PDF.js's legacy build, in Node), with no PDF.js noise on stderr",
    async () => {
      const invoice = join(dir, "invoice.pdf");
      await writeFile(invoice, writeTextPdf(["Invoice 2026-118 (paid)", "The lamp costs 42 euros."]));
      llm = await startScriptedLlm({ dialect: "openai-chat", script: [done] });
      const result = await run(["--include", invoice]);
      expect(result.code, result.stderr).toBe(0);
      const first = userTexts(llm.requests[0] as RecordedRequest).join("\n");
      expect(first).toContain('<attached_file name="invoice.pdf">');
      expect(first).toMatch(/Invoice 2026-118 \(paid\)\s+The lamp costs 42 euros\./);
      expect(result.stderr).not.toContain("Warning:");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "refuses a damaged PDF and one without text, naming the file, before the model is asked (exit 2)",
    async () => {
      const damaged = join(dir, "damaged.pdf");
      await writeFile(damaged, writeTextPdf(["Cut short"]).subarray(0, 150));
      const blank = join(dir, "blank.pdf");
      await writeFile(blank, writeTextPdf([]));
      for (const [file, message] of [
        [damaged, /--include .*damaged\.pdf: damaged\.pdf is not a readable PDF \(.+\)/],
        [blank, /--include .*blank\.pdf: blank\.pdf has no text to read/],
      ] as const) {
        const refused = await runCli([
          "run",
          "read it",
          "--include",
          file,
          "--base-url",
          "http://127.0.0.1:9",
        ]);
        expect(refused.code, refused.stderr).toBe(2);
        const lines = refused.stderr.trim().split("\n");
        expect(lines, refused.stderr).toHaveLength(1);
        expect(lines[0]).toMatch(message);
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "an image goes beside the message for a vision model (--vision on)",
    async () => {
      const picture = join(dir, "lamp.png");
      await writeFile(picture, Buffer.from(TINY_PNG, "base64"));
      llm = await startScriptedLlm({ dialect: "openai-chat", script: [done] });
      const result = await run(["--include", picture, "--vision", "on"]);
      expect(result.code, result.stderr).toBe(0);
      // The first-message screenshot and the user's image.
      expect(imageCount(llm.requests[0] as RecordedRequest)).toBe(2);
      expect(JSON.stringify(llm.requests[0]?.body)).toContain(TINY_PNG);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "refuses an oversized, an unsupported and an image file for a text-only model with a message that says why (exit 2)",
    async () => {
      const big = join(dir, "big.txt");
      await writeFile(big, "x".repeat(600 * 1024));
      const binary = join(dir, "tool.exe");
      await writeFile(binary, Buffer.from([0x4d, 0x5a, 0, 0]));
      const picture = join(dir, "photo.png");
      await writeFile(picture, Buffer.from(TINY_PNG, "base64"));
      const oversized = await runMain([
        "run",
        "read it",
        "--include",
        big,
        "--base-url",
        "http://127.0.0.1:9",
      ]);
      expect(oversized.code).toBe(2);
      expect(oversized.stderr).toContain("big.txt is 600 KB; files of this kind may be at most 512 KB.");
      const unsupported = await runMain([
        "run",
        "read it",
        "--include",
        binary,
        "--base-url",
        "http://127.0.0.1:9",
      ]);
      expect(unsupported.code).toBe(2);
      expect(unsupported.stderr).toContain("tool.exe is not a text, PDF or image file.");
      // The image check needs the model's answer on vision: a model that takes none refuses it.
      llm = await startScriptedLlm({ dialect: "openai-chat", script: [done] });
      const image = await run(["--include", picture, "--vision", "off"]);
      expect(image.code).toBe(2);
      expect(image.stderr).toContain("photo.png is an image, but the model does not take images");
      expect(llm.requests).toHaveLength(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
