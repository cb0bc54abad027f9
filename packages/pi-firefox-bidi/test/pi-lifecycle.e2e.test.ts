/**
 * `/firefox`, `/firefox close` and relaunch, frame-id reuse, a 65-frame batch
 * and a missing binary, through `pi --mode rpc` (real CLI, scripted LLM, real
 * headless Firefox).
 */
import { existsSync } from "node:fs";
import { lastToolResultText, type RecordedRequest, startScriptedLlm, toolNames } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import {
  firefoxCall,
  makeWorkspace,
  PiRpc,
  payloadOf,
  processesUsing,
  tmpEntries,
  usePiTestResources,
} from "./pi-cli.js";

const res = usePiTestResources();

describe("firefox_bidi lifecycle through pi --mode rpc", () => {
  it("activates with /firefox, refuses reused ids and 65 frames, closes, and relaunches fresh", async () => {
    const tools: string[][] = [];
    const recordTools =
      (reply: ReturnType<typeof firefoxCall> | { text: string }) => (request: RecordedRequest) => {
        tools.push(toolNames(request));
        return reply;
      };
    res.llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        recordTools({ text: "not active yet" }),
        recordTools(
          firefoxCall({
            frames: [
              { id: 7, method: "browsingContext.getTree", params: {} },
              {
                method: "script.evaluate",
                params: {
                  expression: "'x'.repeat(300000)",
                  target: { context: "{{7.result.contexts.0.context}}" },
                  awaitPromise: false,
                },
              },
            ],
          }),
        ),
        { text: "first done" },
        firefoxCall({
          frames: [
            { id: 7, method: "browsingContext.getTree", params: {} },
            { method: "browsingContext.getTree", params: {} },
          ],
        }),
        { text: "reuse seen" },
        firefoxCall({
          frames: Array.from({ length: 65 }, () => ({ method: "browsingContext.getTree", params: {} })),
        }),
        { text: "too many seen" },
        firefoxCall({ access: "system", frames: [{ method: "browsingContext.getTree", params: {} }] }),
        { text: "conflict seen" },
        recordTools({ text: "inactive after close" }),
        firefoxCall({
          access: "system",
          frames: [
            { id: 7, method: "browsingContext.getTree", params: {} },
            { id: 8, method: "browsingContext.getTree", params: { "moz:scope": "chrome" } },
          ],
        }),
        { text: "relaunched" },
      ],
    });
    res.ws = makeWorkspace(res.llm.baseUrl);
    const pi = new PiRpc(res.ws);

    await pi.prompt("hello");
    expect(tools[0]).not.toContain("firefox_bidi");

    const opened = await pi.prompt("/firefox");
    expect(JSON.stringify(opened)).toContain("firefox_bidi is active");
    await pi.prompt("use firefox");
    expect(tools[1]).toContain("firefox_bidi");
    const first = payloadOf(res.llm.requests[2]);
    expect(first.frames.map((f) => [f.id, f.status])).toEqual([
      [7, "ok"],
      [1, "ok"],
    ]);
    const spoolPath = first.frames[1]?.spooled?.path;
    expect(spoolPath).toEqual(expect.any(String));
    const firstPid = first.session.pid;
    expect(first.session.launchedThisCall).toBe(true);

    await pi.prompt("reuse an id");
    const reused = payloadOf(res.llm.requests[4]);
    expect(reused.frames[0]).toMatchObject({ id: null, status: "error", error: { kind: "id-reused" } });
    expect(reused.frames[0]?.error?.message).toContain("Frame id 7 was already used");
    expect(reused.frames[1]).toMatchObject({ status: "skipped" });

    await pi.prompt("send 65 frames");
    expect(lastToolResultText(res.llm.requests[6]!)).toContain("at most 64 frames; this one has 65");

    await pi.prompt("ask for system access while running");
    const conflict = lastToolResultText(res.llm.requests[8]!);
    expect(conflict).toContain(
      "already running with headless=true, access=standard; this call asked for access=system",
    );
    expect(conflict).toContain("run /firefox close");

    const closed = await pi.prompt("/firefox close");
    expect(JSON.stringify(closed)).toContain("Firefox closed; firefox_bidi is inactive");
    expect(processesUsing(res.ws)).toEqual([]);
    expect(existsSync(spoolPath!)).toBe(true); // spool files survive /firefox close

    await pi.prompt("anything");
    expect(tools[2]).not.toContain("firefox_bidi");

    await pi.prompt("/firefox");
    await pi.prompt("again, with system access");
    const again = payloadOf(res.llm.requests[11]);
    expect(again.frames[0]).toMatchObject({ id: 7, status: "ok" }); // a new browser has a new id ledger
    expect(again.session).toMatchObject({ launchedThisCall: true, access: "system" });
    expect(again.session.pid).not.toBe(firstPid);
    // With --remote-allow-system-access Firefox 153 lists chrome (browser window) contexts.
    const chrome = again.frames[1] as unknown as {
      status: string;
      response: { result: { contexts: { url: string }[] } };
    };
    expect(chrome.status).toBe("ok");
    expect(chrome.response.result.contexts.some((c) => c.url.startsWith("chrome://"))).toBe(true);

    expect(await pi.close()).toBe(0);
    expect(processesUsing(res.ws)).toEqual([]);
    expect(tmpEntries(res.ws)).toEqual([]);
    expect(existsSync(spoolPath!)).toBe(false); // removed at session shutdown
  }, 300_000);

  it("warns at startup about a missing binary and fails the tool call fast and clearly", async () => {
    res.llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        firefoxCall({ frames: [{ method: "browsingContext.getTree", params: {} }] }),
        { text: "saw the error" },
      ],
    });
    res.ws = makeWorkspace(res.llm.baseUrl);
    const pi = new PiRpc(res.ws, ["--firefox"], { FIREFOX_BIN: "/nonexistent/firefox" });
    await pi.prompt("use firefox");
    const warning = pi.notifications().find((n) => n.notifyType === "warning");
    expect(warning?.message).toContain('FIREFOX_BIN="/nonexistent/firefox" does not exist');
    const result = lastToolResultText(res.llm.requests[1]!);
    expect(result).toContain('FIREFOX_BIN="/nonexistent/firefox" does not exist');
    expect(result).toContain("Install Firefox");
    expect(await pi.close()).toBe(0);
    expect(processesUsing(res.ws)).toEqual([]);
    expect(tmpEntries(res.ws)).toEqual([]);
  }, 180_000);
});
