/**
 * A download-job skill tool end to end in real Firefox: a skill imported in Settings declares
 * `save_clip` (kind httpDownloadJob) against a fixture job server on 127.0.0.1. In Act, the
 * scripted model calls it; the add-on creates the provider job, polls its same-origin status
 * URL until it is ready, asks the permission gate (the person answers "Allow once" in the
 * sidebar's prompt), saves the file through Downloads, and deletes the provider job. In Ask the
 * tool is not offered at all.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluate, navigate } from "@webbrain/bidi";
import {
  type FixtureServer,
  lastToolResultText,
  type ScriptedLlm,
  setupFirefox,
  skillMarkdown,
  startFixtureServer,
  startScriptedLlm,
  toolNames,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  click,
  count,
  downloadPrefs,
  fill,
  firefoxTabId,
  installAndOpenSettings,
  openAddonPage,
  pressEnter,
  scriptedSettings,
  startChatOnPage,
  storeSettings,
  waitForText,
} from "./addon-harness.js";

const CLIP = "fake clip bytes from the provider\n";

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
let llm: ScriptedLlm | undefined;
const downloadsDir = await mkdtemp(join(tmpdir(), "webbrain-skill-downloads-"));
/** Every request to the job server, as "METHOD /path". */
const jobLog: string[] = [];
let statusPolls = 0;

function jobRoute(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    jobLog.push(`${req.method} ${new URL(req.url ?? "/", "http://x").pathname}`);
    handle(req, res);
  };
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
}

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer({
    routes: {
      "/jobs": jobRoute((_req, res) => json(res, { job_id: "j1", status: "queued" })),
      "/jobs/j1": jobRoute((req, res) => {
        if (req.method === "DELETE") return json(res, { deleted: true });
        statusPolls++;
        json(res, { status: statusPolls < 2 ? "running" : "done" });
      }),
      "/jobs/j1/file": jobRoute((_req, res) => {
        res
          .writeHead(200, {
            "content-type": "application/octet-stream",
            "content-disposition": 'attachment; filename="clip.bin"',
          })
          .end(CLIP);
      }),
    },
  });
});
afterAll(async () => {
  await llm?.close();
  await fixtures?.close();
  await addon?.remove();
  await rm(downloadsDir, { recursive: true, force: true });
});

const firefox = setupFirefox({
  prefs: {
    ...ADDON_PREFS,
    ...downloadPrefs(downloadsDir),
  },
});
let settingsPage = "";

function mediaSaverSkill(origin: string): string {
  const manifest = {
    tools: [
      {
        name: "save_clip",
        description: "Save a clip of a video through the media service",
        kind: "httpDownloadJob",
        readOnly: false,
        method: "POST",
        endpoint: `${origin}/jobs`,
        job: {
          idField: "job_id",
          statusEndpoint: `${origin}/jobs/{job_id}`,
          fileEndpoint: `${origin}/jobs/{job_id}/file`,
          cleanupEndpoint: `${origin}/jobs/{job_id}`,
          pollIntervalMs: 200,
          timeoutMs: 20_000,
        },
        parameters: {
          type: "object",
          properties: { url: { type: "string" }, filename: { type: "string" } },
          required: ["url"],
        },
      },
    ],
  };
  return skillMarkdown({ title: "Media saver", instructions: "Use save_clip to save clips.", ...manifest });
}

describe("download-job skill tool", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
    const reply = await evaluate<{ ok: boolean; error?: string }>(
      firefox.client,
      settingsPage,
      `browser.runtime.sendMessage({ type: "wb_skills_import", markdown: ${JSON.stringify(mediaSaverSkill(new URL(fixtures!.url("/")).origin))} })`,
      { awaitPromise: true },
    );
    expect(reply.error).toBeUndefined();
  });

  it("creates the job, polls it, saves the file behind the permission prompt, and cleans up", async () => {
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        {
          toolCalls: [
            { name: "save_clip", arguments: { url: "https://video.example/1", filename: "clip.bin" } },
          ],
        },
        (request) => ({ text: `Saved. ${lastToolResultText(request).slice(0, 300)}` }),
      ],
    });
    await storeSettings(firefox.client, settingsPage, scriptedSettings(llm.baseUrl));
    const context = await firefox.newTab();
    const url = fixtures!.url("/extension/article.html");
    await navigate(firefox.client, context, url);
    const tabId = await firefoxTabId(firefox.client, settingsPage, url);
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
    // The tab's title shows once the sidebar has subscribed to the tab: a message sent before
    // that has no tab to go to (the prompt then never shows).
    await waitForText(firefox.client, sidebar, "#tab-title", "Lighthouse of Alexandria");
    await click(firefox.client, sidebar, 'input[name="mode"][value="act"] + span');
    await fill(firefox.client, sidebar, "#input", "Save a clip of https://video.example/1");
    await pressEnter(firefox.client, sidebar);

    // The gate asks before anything is saved; the person allows it once.
    await waitForText(firefox.client, sidebar, "#live .prompt", "127.0.0.1", 30_000);
    expect(jobLog.filter((line) => line.endsWith("/file"))).toEqual([]);
    await click(firefox.client, sidebar, "#live .prompt button:nth-of-type(1)");

    await waitFor(async () => (llm?.requests.length ?? 0) >= 2, {
      timeoutMs: 30_000,
      message: "the model never got the tool's result",
    });
    const result = lastToolResultText(llm.requests[1]!);
    expect(result).toMatch(/^\[save_clip ok\]/);
    expect(result).toContain('<untrusted source="skill media-saver');
    expect(toolNames(llm.requests[0]!)).toContain("save_clip");

    let saved: string[] = [];
    await waitFor(
      async () => {
        saved = await readdir(downloadsDir);
        return saved.length === 1 && (await readFile(join(downloadsDir, saved[0]!), "utf8")) === CLIP;
      },
      { timeoutMs: 15_000, message: "the clip never landed in the downloads folder" },
    );
    expect(saved).toEqual(["clip.bin"]);
    expect(jobLog[0]).toBe("POST /jobs");
    expect(jobLog.filter((line) => line === "GET /jobs/j1").length).toBeGreaterThanOrEqual(2);
    expect(jobLog).toContain("GET /jobs/j1/file");
    await waitFor(async () => jobLog.includes("DELETE /jobs/j1"), {
      message: "the provider job was not cleaned up",
    });
    expect(jobLog.indexOf("DELETE /jobs/j1")).toBeGreaterThan(jobLog.indexOf("GET /jobs/j1/file"));
    expect(await count(firefox.client, sidebar, "#live .prompt")).toBe(0);
    await firefox.client.send("browsingContext.close", { context: sidebar });
  });

  it("is not offered in Ask", async () => {
    await llm?.close();
    llm = await startScriptedLlm({ dialect: "openai-chat", script: [{ text: "Nothing to save in Ask." }] });
    await storeSettings(firefox.client, settingsPage, scriptedSettings(llm.baseUrl));
    await startChatOnPage(
      firefox,
      settingsPage,
      `${fixtures!.url("/extension/article.html")}?ask=1`,
      "Save a clip",
      "ask",
    );
    await waitFor(async () => (llm?.requests.length ?? 0) >= 1, { message: "the model was never called" });
    expect(toolNames(llm.requests[0]!)).not.toContain("save_clip");
  });
});
