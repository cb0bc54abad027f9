import { describe, expect, it } from "vitest";
import { DebugLog, type DebugSink, errorKind, selectDebug } from "../src/debug-log.js";

describe("selectDebug", () => {
  it("lets the env decide first, then user-level pi-ext.debug", () => {
    expect(selectDebug({ PI_FIREFOX_BIDI_DEBUG: "1" }, undefined)).toEqual({ enabled: true, basis: "env" });
    expect(selectDebug({ PI_FIREFOX_BIDI_DEBUG: "0" }, { "pi-ext": { debug: true } })).toEqual({
      enabled: false,
      basis: "env",
    });
    expect(selectDebug({}, { "pi-ext": { debug: true } })).toEqual({ enabled: true, basis: "user" });
    expect(selectDebug({}, {})).toEqual({ enabled: false, basis: "default" });
  });

  it("turns debugging off with a warning for invalid values", () => {
    expect(selectDebug({ PI_FIREFOX_BIDI_DEBUG: "" }, undefined)).toMatchObject({
      enabled: false,
      warning: expect.stringContaining("invalid"),
    });
    expect(selectDebug({}, { "pi-ext": { debug: "yes" } })).toMatchObject({
      enabled: false,
      warning: expect.stringContaining("pi-ext.debug"),
    });
  });
});

describe("DebugLog", () => {
  it("appends records in order and keeps going when a write fails", async () => {
    const lines: string[] = [];
    let calls = 0;
    const sink: DebugSink = {
      append: async (line) => {
        calls += 1;
        if (calls === 2) throw new Error("EIO");
        lines.push(line);
      },
    };
    const log = new DebugLog("abcd", () => new Date(0));
    log.record({ span: "command", outcome: "ok", durationMs: 1, command: "firefox", action: "open" });
    log.configure(sink);
    log.record({ span: "command", outcome: "ok", durationMs: 1, command: "firefox", action: "open" });
    log.record({ span: "teardown", outcome: "ok", durationMs: 2, reason: "command" });
    log.record({
      span: "teardown",
      outcome: "error",
      durationMs: 3,
      reason: "session_shutdown",
      errorKind: "Error",
    });
    await log.flush();
    expect(log.dropped).toBe(1);
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        ts: "1970-01-01T00:00:00.000Z",
        ext: "firefox-bidi",
        session: "abcd",
        pid: process.pid,
        span: "command",
        outcome: "ok",
        durationMs: 1,
        command: "firefox",
        action: "open",
      },
      {
        ts: "1970-01-01T00:00:00.000Z",
        ext: "firefox-bidi",
        session: "abcd",
        pid: process.pid,
        span: "teardown",
        outcome: "error",
        durationMs: 3,
        reason: "session_shutdown",
        errorKind: "Error",
      },
    ]);
  });

  it("names errors by class, never by message", () => {
    class SecretError extends Error {
      override name = "SecretError";
    }
    expect(errorKind(new SecretError("page text here"))).toBe("SecretError");
    expect(errorKind("x")).toBe("string");
  });
});
