/**
 * Settings through the real `pi --mode rpc`: one invalid value per source and
 * how each behaves (README "Settings"), project trust on Pi 0.73.1, the
 * screencastDir default against Firefox 153, and the debug records' contract.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { lastToolResultText, type RecordedRequest, startScriptedLlm, toolNames } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import {
  firefoxCall,
  makeWorkspace,
  PiRpc,
  processesUsing,
  tmpEntries,
  usePiTestResources,
  writeProjectSettings,
  writeUserSettings,
} from "./pi-cli.js";

const res = usePiTestResources();

interface Case {
  name: string;
  env?: Record<string, string>;
  user?: unknown;
  project?: unknown;
  expectWarning?: string;
  expectInfo?: string;
}

const inactiveCases: Case[] = [
  {
    name: "an empty PI_FIREFOX (env), even with enable true in user settings",
    env: { PI_FIREFOX: "" },
    user: { "firefox-bidi": { enable: true } },
    expectWarning: "invalid enable from env (PI_FIREFOX)",
  },
  {
    name: 'a string "yes" for enable in user settings',
    user: { "firefox-bidi": { enable: "yes" } },
    expectWarning: "invalid enable from user",
  },
  {
    name: "enable 1 in trusted project settings, without falling back to the user's true",
    env: { PI_FIREFOX_BIDI_TRUST_PROJECT: "1" },
    project: { "firefox-bidi": { enable: 1 } },
    user: { "firefox-bidi": { enable: true } },
    expectWarning: "invalid enable from project",
  },
  {
    name: "enable true in an untrusted project (Pi 0.73.1 without opt-in)",
    project: { "firefox-bidi": { enable: true } },
    expectInfo: "because the project is not trusted; set PI_FIREFOX_BIDI_TRUST_PROJECT=1",
  },
];

describe("settings through pi --mode rpc", () => {
  it.each(inactiveCases)(
    "leaves the tool inactive for $name",
    async (c) => {
      let tools: string[] = [];
      res.llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          (request: RecordedRequest) => {
            tools = toolNames(request);
            return { text: "ok" };
          },
        ],
      });
      res.ws = makeWorkspace(res.llm.baseUrl);
      if (c.user) writeUserSettings(res.ws, c.user);
      if (c.project) writeProjectSettings(res.ws, c.project);
      const pi = new PiRpc(res.ws, [], c.env ?? {});
      await pi.prompt("hello");
      expect(tools).not.toContain("firefox_bidi");
      const notes = pi.notifications();
      if (c.expectWarning) {
        expect(notes.find((n) => n.notifyType === "warning")?.message).toContain(c.expectWarning);
        expect(notes.find((n) => n.notifyType === "warning")?.message).toContain("stays inactive");
      }
      if (c.expectInfo) expect(notes.find((n) => n.notifyType === "info")?.message).toContain(c.expectInfo);
      expect(await pi.close()).toBe(0);
    },
    180_000,
  );

  it("reads trusted project settings over user settings when the user opted in", async () => {
    let tools: string[] = [];
    res.llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        (request: RecordedRequest) => {
          tools = toolNames(request);
          return { text: "ok" };
        },
      ],
    });
    res.ws = makeWorkspace(res.llm.baseUrl);
    writeUserSettings(res.ws, { "firefox-bidi": { enable: false } });
    writeProjectSettings(res.ws, { "firefox-bidi": { enable: true } });
    const pi = new PiRpc(res.ws, [], { PI_FIREFOX_BIDI_TRUST_PROJECT: "1" });
    await pi.prompt("hello");
    expect(tools).toContain("firefox_bidi");
    expect(pi.notifications()).toEqual([]);
    expect(await pi.close()).toBe(0);
  }, 180_000);

  it("warns about an invalid executablePath at startup and fails the launching call", async () => {
    res.llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        firefoxCall({ frames: [{ method: "browsingContext.getTree", params: {} }] }),
        { text: "saw it" },
      ],
    });
    res.ws = makeWorkspace(res.llm.baseUrl);
    writeUserSettings(res.ws, { "firefox-bidi": { executablePath: "" } });
    const pi = new PiRpc(res.ws, [], { PI_FIREFOX: "true" });
    await pi.prompt("go");
    expect(pi.notifications().find((n) => n.notifyType === "warning")?.message).toContain(
      "invalid executablePath from user",
    );
    expect(lastToolResultText(res.llm.requests[1]!)).toContain("invalid executablePath from user");
    expect(processesUsing(res.ws)).toEqual([]);
    expect(await pi.close()).toBe(0);
  }, 180_000);

  it("fails only the call that carries startScreencast when screencastDir is invalid", async () => {
    res.llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        firefoxCall({ frames: [{ method: "browsingContext.startScreencast", params: { context: "x" } }] }),
        { text: "saw it" },
      ],
    });
    res.ws = makeWorkspace(res.llm.baseUrl);
    writeUserSettings(res.ws, { "firefox-bidi": { screencastDir: 42 } });
    const pi = new PiRpc(res.ws, ["--firefox"]);
    await pi.prompt("record");
    expect(pi.notifications().filter((n) => n.notifyType === "warning")).toEqual([]);
    const result = lastToolResultText(res.llm.requests[1]!);
    expect(result).toContain("invalid screencastDir from user");
    expect(result).toContain("expected a non-empty string, got 42");
    expect(await pi.close()).toBe(0);
    expect(tmpEntries(res.ws)).toEqual([]); // refused before any launch or spool
  }, 180_000);

  it("passes Firefox 153's verbatim error for startScreencast with screencastDir set, and logs metadata only", async () => {
    const secret = "PAGE-SECRET-TEXT";
    res.llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        firefoxCall({
          frames: [
            { id: 1, method: "browsingContext.getTree", params: {} },
            {
              id: 2,
              method: "script.evaluate",
              params: {
                expression: `'${secret}'`,
                target: { context: "{{1.result.contexts.0.context}}" },
                awaitPromise: false,
              },
            },
            {
              id: 3,
              method: "browsingContext.startScreencast",
              params: { context: "{{1.result.contexts.0.context}}" },
            },
            { id: 4, method: "browsingContext.getTree", params: {} },
          ],
        }),
        { text: "done" },
      ],
    });
    res.ws = makeWorkspace(res.llm.baseUrl);
    writeUserSettings(res.ws, { "firefox-bidi": { screencastDir: join(res.ws.root, "casts") } });
    const pi = new PiRpc(res.ws, ["--firefox"], { PI_FIREFOX_BIDI_DEBUG: "1" });
    await pi.prompt("record");
    const payload = JSON.parse(lastToolResultText(res.llm.requests[1]!)) as {
      frames: Record<string, unknown>[];
    };
    expect(payload.frames[2]).toEqual({
      id: 3,
      method: "browsingContext.startScreencast",
      status: "error",
      response: expect.objectContaining({ type: "error", id: 3, error: "unknown command" }),
    });
    expect(payload.frames[3]).toMatchObject({ status: "skipped" });
    expect(await pi.close()).toBe(0);
    expect(processesUsing(res.ws)).toEqual([]);

    const log = readFileSync(join(res.ws.agentDir, "debug", "firefox-bidi.jsonl"), "utf8");
    const records = log
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => [r.span, r.outcome])).toEqual([
      ["launch", "ok"],
      ["batch", "error"],
      ["teardown", "ok"],
    ]);
    expect(records[1]).toMatchObject({
      frames: 4,
      ok: 2,
      failed: 1,
      skipped: 1,
      waits: 0,
      waitsTimedOut: 0,
      spooled: 0,
    });
    expect(log).not.toContain(secret);
    expect(log).not.toContain("unknown command");
    expect(log).not.toContain("casts");
  }, 180_000);
});
