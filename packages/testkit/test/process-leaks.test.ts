import { afterEach, describe, expect, it, vi } from "vitest";
import { leaksBetween, processState } from "../src/process-leaks.js";

describe("process leaks between test files", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.useRealTimers();
  });

  it("finds nothing when the process is as it was", () => {
    expect(leaksBetween(processState(false), processState(false))).toEqual([]);
  });

  it("names an environment variable set, changed or deleted", () => {
    vi.stubEnv("WEBBRAIN_LEAK_CHANGED", "before");
    vi.stubEnv("WEBBRAIN_LEAK_DELETED", "here");
    const before = processState(false);
    vi.stubEnv("WEBBRAIN_LEAK_SET", "/tmp/state");
    vi.stubEnv("WEBBRAIN_LEAK_CHANGED", "after");
    vi.stubEnv("WEBBRAIN_LEAK_DELETED", undefined);
    expect(leaksBetween(before, processState(false))).toEqual([
      "process.env.WEBBRAIN_LEAK_CHANGED was changed",
      "process.env.WEBBRAIN_LEAK_DELETED was deleted",
      "process.env.WEBBRAIN_LEAK_SET was set",
    ]);
  });

  it("names fake timers left on, a swapped console or stream, and a process listener left behind", () => {
    const before = processState(vi.isFakeTimers());
    vi.useFakeTimers();
    const savedLog = console.log;
    const savedWrite = process.stderr.write;
    const onExit = () => {};
    console.log = () => {};
    process.stderr.write = (() => true) as typeof process.stderr.write;
    process.on("exit", onExit);
    try {
      const leaks = leaksBetween(before, processState(vi.isFakeTimers()));
      expect(leaks).toEqual([
        "fake timers are still on (vi.useRealTimers)",
        "console.log was replaced",
        "process.stderr.write was replaced",
        expect.stringMatching(/^1 more process "exit" listener\(s\) \(a Firefox still running/),
      ]);
    } finally {
      console.log = savedLog;
      process.stderr.write = savedWrite;
      process.removeListener("exit", onExit);
    }
    expect(leaksBetween(before, processState(false))).toEqual([]);
  });
});
