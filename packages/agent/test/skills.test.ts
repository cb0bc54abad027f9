// Custom skills: the manifest format, import as the trust boundary, the prompt without the
// fences, declared tools offered per mode, cookieless requests that keep the endpoint's origin,
// URL allowlists, response limits, untrusted wrapping, and download jobs.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { lastToolResultText, systemPromptText, toolNames } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildCustomSkillsPrompt,
  buildSkillRequest,
  importSkill,
  limitSkillResponse,
  parseSkill,
  platformSkillHttp,
  runSkillTool,
  type SkillDefinition,
  type SkillHttp,
  type SkillHttpRequest,
  SkillImportError,
} from "../src/index.js";
import { type Harness, harness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function manifest(tools: unknown[]): string {
  return ["```webbrain-tools", JSON.stringify({ tools }, null, 2), "```"].join("\n");
}

const SUMMARY_TOOL = {
  name: "wiki_summary",
  description: "Summary of a Wikipedia article",
  kind: "http",
  readOnly: true,
  method: "GET",
  endpoint: "https://en.wikipedia.org/api/rest_v1/page/summary/{title}",
  resultPolicy: "untrusted",
  responseLimits: { maxTextChars: 500, maxArrayItems: { items: 2 } },
  parameters: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
};

const WIKI: SkillDefinition = {
  id: "wiki",
  name: "Wikipedia",
  enabled: true,
  body: [
    "# Wikipedia",
    "Look facts up on Wikipedia with wiki_summary before answering.",
    "```webbrain-skill",
    '{"summary": "Encyclopedia lookups"}',
    "```",
    manifest([SUMMARY_TOOL]),
  ].join("\n"),
};

class RecordingHttp implements SkillHttp {
  requests: SkillHttpRequest[] = [];
  constructor(
    private readonly answer: (request: SkillHttpRequest) => {
      status?: number;
      body: string;
      contentType?: string;
    },
  ) {}
  async send(request: SkillHttpRequest) {
    this.requests.push(request);
    const answer = this.answer(request);
    return {
      status: answer.status ?? 200,
      statusText: "OK",
      url: request.url,
      contentType: answer.contentType ?? "application/json",
      body: answer.body,
      truncated: false,
    };
  }
}

describe("skill manifests", () => {
  it("splits instructions from the fences and reads the original project's tool format", () => {
    const parsed = parseSkill(WIKI);
    expect(parsed.instructions).toBe(
      "# Wikipedia\nLook facts up on Wikipedia with wiki_summary before answering.",
    );
    expect(parsed.summary).toBe("Encyclopedia lookups");
    expect(parsed.tools).toHaveLength(1);
    expect(parsed.tools[0]).toMatchObject({
      name: "wiki_summary",
      kind: "http",
      modes: ["ask", "act", "dev"],
    });
    expect(buildCustomSkillsPrompt([WIKI])).not.toContain("webbrain-");
    expect(buildCustomSkillsPrompt([{ ...WIKI, enabled: false }])).toBe("");
  });

  it("refuses a malformed manifest at import with every problem named", () => {
    const bad = [
      "# Bad",
      "Use it.",
      manifest([
        { ...SUMMARY_TOOL, name: "click_ax" },
        { ...SUMMARY_TOOL, name: "plain", endpoint: "http://example.com/x" },
        { ...SUMMARY_TOOL, name: "writer", readOnly: false },
      ]),
    ].join("\n");
    let error: unknown;
    try {
      importSkill(bad);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SkillImportError);
    expect((error as Error).message).toContain('tool name "click_ax" is already taken');
    expect((error as Error).message).toContain("plain: endpoint must be an https:// URL");
    expect((error as Error).message).toContain("writer: http skill tools must be read-only");
    expect(() => importSkill("# X\n```webbrain-tools\n{not json\n```")).toThrow(/not valid JSON/);
    expect(() => importSkill("no heading here")).toThrow(/"# Name" heading/);
    expect(importSkill(WIKI.body, { existingIds: ["wikipedia"] })).toMatchObject({
      id: "wikipedia-2",
      name: "Wikipedia",
      enabled: true,
    });
  });

  it("keeps a download job's endpoints on one origin and out of Ask", () => {
    const job = {
      name: "save_media",
      kind: "httpDownloadJob",
      readOnly: false,
      method: "POST",
      endpoint: "https://media.example/v1/jobs",
      job: {
        idField: "job_id",
        statusEndpoint: "https://media.example/v1/jobs/{job_id}",
        fileEndpoint: "https://evil.example/{job_id}",
      },
      parameters: { type: "object", properties: {} },
    };
    expect(() => importSkill(`# Media\n${manifest([job])}`)).toThrow(
      /fileEndpoint must be on the same origin/,
    );
    const ok = importSkill(
      `# Media\n${manifest([{ ...job, job: { ...job.job, fileEndpoint: "https://media.example/v1/jobs/{job_id}/file" } }])}`,
    );
    expect(parseSkill(ok).tools[0]?.modes).toEqual(["act", "dev"]);
  });
});

describe("skill requests", () => {
  const tool = parseSkill(WIKI).tools[0];
  if (!tool) throw new Error("no tool");

  it("encodes arguments into the endpoint and never lets them change its origin", () => {
    expect(buildSkillRequest(tool, { title: "Ada Lovelace/../x?y" })).toMatchObject({
      url: "https://en.wikipedia.org/api/rest_v1/page/summary/Ada%20Lovelace%2F..%2Fx%3Fy",
      method: "GET",
    });
    expect(buildSkillRequest(tool, {})).toBe('wiki_summary: missing required argument "title".');
    expect(
      buildSkillRequest({ ...tool, endpoint: "https://{host}/x" }, { title: "t", host: "evil.example" }),
    ).toContain("change the endpoint's origin");
  });

  it("fills the active tab's URL and holds URL arguments to the allowlist", () => {
    const transcript = {
      ...tool,
      name: "read_transcript",
      method: "POST" as const,
      endpoint: "https://skills.example/v1/transcript",
      defaultArgs: { timestamps: true },
      activeTabUrlArg: "url",
      inputUrlArg: "url",
      inputUrlAllowlist: [{ host: "youtube.com", paths: ["/watch"] }],
      parameters: { type: "object" as const, properties: { url: { type: "string" as const } } },
    };
    const request = buildSkillRequest(transcript, {}, "https://www.youtube.com/watch?v=abc");
    expect(request).toMatchObject({ method: "POST", url: "https://skills.example/v1/transcript" });
    expect(JSON.parse((request as SkillHttpRequest).body ?? "")).toEqual({
      timestamps: true,
      url: "https://www.youtube.com/watch?v=abc",
    });
    expect(buildSkillRequest(transcript, { url: "https://evil.example/watch" })).toMatch(
      /accepts URLs on youtube.com only/,
    );
    expect(buildSkillRequest(transcript, { url: "https://youtube.com/feed" })).toMatch(/not one of them/);
  });

  it("cuts JSON arrays and long text to the declared limits", () => {
    const items = { items: [1, 2, 3, 4], text: "x".repeat(10) };
    const limited = limitSkillResponse(tool, {
      status: 200,
      statusText: "OK",
      url: "https://en.wikipedia.org/x",
      contentType: "application/json",
      body: JSON.stringify(items),
      truncated: false,
    });
    expect(JSON.parse(limited.text)).toEqual({ items: [1, 2], text: "x".repeat(10) });
    expect(limited.truncated).toBe(true);
    const long = limitSkillResponse(tool, {
      status: 200,
      statusText: "OK",
      url: "u",
      contentType: "text/plain",
      body: "y".repeat(900),
      truncated: false,
    });
    expect(long.text).toHaveLength(500);
  });

  it("platformSkillHttp sends no cookies and refuses redirects (a real local server)", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url === "/redirect") res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end();
      else res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const answer = await platformSkillHttp.send({
        url: `${base}/x`,
        method: "GET",
        headers: {},
        maxChars: 100,
        timeoutMs: 5_000,
      });
      expect(answer).toMatchObject({ status: 200, body: '{"ok":true}' });
      expect(seen[0]?.cookie).toBeUndefined();
      await expect(
        platformSkillHttp.send({
          url: `${base}/redirect`,
          method: "GET",
          headers: {},
          maxChars: 100,
          timeoutMs: 5_000,
        }),
      ).rejects.toThrow();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("skill tools in the agent", () => {
  it("offers the tool in Ask mode, calls the endpoint through the skill network, wraps the answer", async () => {
    const http = new RecordingHttp(() => ({ body: '{"extract":"Firefox is a web browser."}' }));
    h = await harness({
      script: [
        { toolCalls: [{ name: "wiki_summary", arguments: { title: "Firefox" } }] },
        (request) => ({ text: lastToolResultText(request) }),
      ],
      agent: { skills: [WIKI, { ...WIKI, id: "off", name: "Off", enabled: false }], skillHttp: http },
    });
    const result = await h.agent.processMessage("1", "what is firefox?", { mode: "ask" });
    if (result.status === "error") throw new Error(result.text);
    const first = h.llm.requests[0];
    if (!first) throw new Error("no request");
    expect(toolNames(first)).toContain("wiki_summary");
    expect(systemPromptText(first)).toContain('Skill "Wikipedia":\n# Wikipedia\nLook facts up');
    expect(systemPromptText(first)).not.toContain("webbrain-tools");
    expect(http.requests[0]).toMatchObject({
      url: "https://en.wikipedia.org/api/rest_v1/page/summary/Firefox",
      method: "GET",
    });
    // The user's cookie-carrying fetch is not what skills use.
    expect(h.browser.named("fetchUrl")).toHaveLength(0);
    expect(result.text).toContain('<untrusted source="skill wiki https://en.wikipedia.org/');
    expect(result.text).toContain("Firefox is a web browser.");
  });
});

describe("download-job skill tools", () => {
  const media = parseSkill(
    importSkill(
      `# Media\n${manifest([
        {
          name: "save_media",
          kind: "httpDownloadJob",
          readOnly: false,
          method: "POST",
          endpoint: "https://media.example/v1/jobs",
          job: {
            idField: "job_id",
            statusEndpoint: "https://media.example/v1/jobs/{job_id}",
            fileEndpoint: "https://media.example/v1/jobs/{job_id}/file",
            cleanupEndpoint: "https://media.example/v1/jobs/{job_id}",
            pollIntervalMs: 100,
            timeoutMs: 5_000,
          },
          parameters: { type: "object", properties: { url: { type: "string" } } },
        },
      ])}`,
    ),
  ).tools[0];
  if (!media) throw new Error("no tool");

  it("creates the job, polls until ready, saves through Downloads behind the gate, cleans up", async () => {
    let polls = 0;
    const http = new RecordingHttp((request) => {
      if (request.method === "POST") return { body: '{"job_id":"j1","status":"queued"}' };
      if (request.method === "DELETE") return { body: "{}" };
      polls++;
      return { body: JSON.stringify({ status: polls < 2 ? "running" : "done" }) };
    });
    const saved: string[] = [];
    const asked: string[] = [];
    const result = await runSkillTool(
      media,
      { url: "https://video.example/1" },
      {
        http,
        mode: "act",
        sleep: async () => undefined,
        port: {
          download: async (url) => {
            saved.push(url);
            return { id: "7", url, filename: "clip.mp4", state: "complete" };
          },
        },
        checkPermission: async (request) => {
          asked.push(`${request.capability} ${request.origin}`);
          return { allowed: true };
        },
      },
    );
    expect(asked).toEqual(["download https://media.example"]);
    expect(saved).toEqual(["https://media.example/v1/jobs/j1/file"]);
    expect(http.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST https://media.example/v1/jobs",
      "GET https://media.example/v1/jobs/j1",
      "GET https://media.example/v1/jobs/j1",
      "DELETE https://media.example/v1/jobs/j1",
    ]);
    expect(result.isError).toBe(false);
    expect(JSON.stringify(result.content)).toContain('\\"downloadId\\":\\"7\\"');
  });

  it("a denied download saves nothing and starts no job; Ask refuses it outright", async () => {
    const http = new RecordingHttp(() => ({ body: "{}" }));
    const denied = await runSkillTool(
      media,
      {},
      {
        http,
        mode: "act",
        port: { download: async () => Promise.reject(new Error("must not download")) },
        checkPermission: async () => ({ allowed: false, message: "The user denied download." }),
      },
    );
    expect(denied.isError).toBe(true);
    expect(http.requests).toHaveLength(0);
    const ask = await runSkillTool(media, {}, { http, mode: "ask" });
    expect(JSON.stringify(ask.content)).toContain("not available in ask mode");
  });
});
