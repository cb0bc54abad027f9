/**
 * Tools the runner's conformance call alone covered, now by what they do: clarify ends the run
 * with its question, research_url returns the page's text, iframe_type's text lands in the
 * frame's field, download_resource_from_page saves the resource's bytes. The real bin, one
 * shared headless Firefox (--connect), a scripted model over HTTP.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type FixtureServer,
  lastToolResultText,
  type RecordedRequest,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runMain } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 120_000;
const RESOURCE = Buffer.from("station,reading\nnorth-7731,12.5\n");

let server: FixtureServer;
const firefox = useCliFirefox();
let llm: ScriptedLlm | undefined;
const typed: string[] = [];

const html = (body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(`<!doctype html><html><head><title>Page</title></head><body>${body}</body></html>`);
};

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/start": html("<h1>Start</h1>"),
      "/article": html("<h1>Moths</h1><p>The luna moth lives about seven days as an adult.</p>"),
      "/outer": html('<h1>Outer</h1><iframe src="/inner" title="search frame"></iframe>'),
      "/inner": html(
        `<input id="q" aria-label="Search" oninput="fetch('/api/typed', {method: 'POST', body: this.value})">`,
      ),
      "/api/typed": (req: IncomingMessage, res: ServerResponse) => {
        let body = "";
        req.on("data", (chunk) => {
          body += chunk;
        });
        req.on("end", () => {
          typed.push(body);
          res.writeHead(204);
          res.end();
        });
      },
      "/files": html('<a id="dl" href="/resource.csv" download>the data file</a>'),
      "/resource.csv": (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { "content-type": "text/csv", "content-length": RESOURCE.length });
        res.end(RESOURCE);
      },
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

const done = { toolCalls: [{ name: "done", arguments: { summary: "Finished." } }] };

/**
 * `webbrain run` on the file's Firefox, asked of main in this process (run-cli.ts runMain): the
 * tests check the tools' effects and what the run printed, not the process around it.
 */
function run(path: string, extra: string[] = []) {
  if (!llm) throw new Error("start the scripted LLM first");
  return runMain([
    "run",
    "do the task",
    "--url",
    server.url(path),
    "--base-url",
    llm.baseUrl,
    "--model",
    "scripted-1",
    "--tier",
    "mid",
    "--json",
    ...extra,
    ...firefox.connectArgs(),
  ]);
}

describe("runner tools by their effect", () => {
  it(
    "clarify ends the run with the model's question (status clarify, exit 1)",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "clarify", arguments: { question: "Which lamp, the red or the blue?" } }] },
        ],
      });
      const result = await run("/start");
      expect(result.code).toBe(1);
      const summary = JSON.parse(result.stdout) as { status: string; summary: string };
      expect(summary.status).toBe("clarify");
      expect(summary.summary).toContain("Which lamp, the red or the blue?");
      expect(llm.requests).toHaveLength(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "research_url returns the page's text to the model",
    async () => {
      let seen = "";
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "research_url", arguments: { url: server.url("/article") } }] },
          (request: RecordedRequest) => {
            seen = lastToolResultText(request);
            return done;
          },
        ],
      });
      const result = await run("/start");
      expect(result.code, result.stderr).toBe(0);
      expect(seen).toContain("The luna moth lives about seven days as an adult.");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "iframe_type puts its text into the frame's field",
    async () => {
      typed.length = 0;
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          {
            toolCalls: [
              {
                name: "iframe_type",
                arguments: { urlFilter: "/inner", selector: "#q", text: "hello frames" },
              },
            ],
          },
          done,
        ],
      });
      // The run itself ends refused (done right after typing without submitting is blocked);
      // what counts here is the frame's field.
      const result = await run("/outer");
      expect(result.stderr).toMatch(/ok {3}iframe_type/);
      // The frame's own input handler reported the field's value.
      expect(typed).toContain("hello frames");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "download_resource_from_page saves the resource's bytes",
    async () => {
      let seen = "";
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "download_resource_from_page", arguments: { selector: "#dl" } }] },
          (request: RecordedRequest) => {
            const id = /"id":"([^"]+)"/.exec(lastToolResultText(request))?.[1] ?? "missing";
            return { toolCalls: [{ name: "read_downloaded_file", arguments: { id } }] };
          },
          (request: RecordedRequest) => {
            seen = lastToolResultText(request);
            return done;
          },
        ],
      });
      const result = await run("/files");
      expect(result.code, result.stderr).toBe(0);
      // The saved file, read back through the runner, is the resource as served.
      expect(seen).toContain("north-7731,12.5");
      expect(seen).toContain("station,reading");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
