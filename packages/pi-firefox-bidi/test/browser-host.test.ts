import type { BidiClient, FirefoxBrowser } from "@webbrain/bidi";
import { nodeSpoolFs, SpoolStore } from "@webbrain/bidi/batch";
import { describe, expect, it } from "vitest";
import { BrowserHost, LaunchOptionsConflictError, SYSTEM_ACCESS_ARG } from "../src/browser-host.js";
import { DebugLog, type DebugRecord } from "../src/debug-log.js";

/** A stand-in for a launched browser: the host only needs `client.on`, `close` and `exited`. */
function fakeBrowser(pid: number) {
  let exit: () => void = () => undefined;
  const exited = new Promise<void>((resolve) => {
    exit = resolve;
  });
  let closed = 0;
  const client = { on: () => () => undefined } as unknown as BidiClient;
  const browser: FirefoxBrowser = {
    client,
    wsEndpoint: "ws://fake",
    pid,
    profileDir: "/nowhere",
    sessionId: "s",
    browserName: "firefox",
    browserVersion: "153",
    close: async () => {
      closed += 1;
      exit();
    },
    exited,
  };
  return { browser, crash: () => exit(), closedCount: () => closed };
}

function setup() {
  const launches: { headless: boolean; args: string[] }[] = [];
  const browsers: ReturnType<typeof fakeBrowser>[] = [];
  const records: DebugRecord[] = [];
  const debug = new DebugLog("t");
  debug.configure({ append: async (line) => void records.push(JSON.parse(line) as DebugRecord) });
  const host = new BrowserHost(
    async ({ headless, args }) => {
      launches.push({ headless, args });
      const fake = fakeBrowser(100 + browsers.length);
      browsers.push(fake);
      return fake.browser;
    },
    new SpoolStore({ fs: nodeSpoolFs, prefix: "/tmp/never-used-" }),
    debug,
  );
  return { host, launches, browsers, records, debug };
}

describe("BrowserHost", () => {
  it("launches once, lazily, with defaults, and reuses the browser when options are left out or equal", async () => {
    const { host, launches } = setup();
    expect(host.running).toBeUndefined();
    const first = await host.acquire({}, "/usr/bin/firefox");
    expect(first.launched).toBe(true);
    expect(first.running.options).toEqual({ headless: true, access: "standard" });
    expect(launches).toEqual([{ headless: true, args: [] }]);
    const second = await host.acquire({ headless: true, access: "standard" }, "/usr/bin/firefox");
    expect(second).toMatchObject({ launched: false });
    expect(second.running).toBe(first.running);
  });

  it("hands out the running browser without an await, with the same option check, and nothing before", async () => {
    const { host, launches } = setup();
    expect(host.reuse({})).toBeUndefined();
    const launching = host.acquire({}, "/x");
    expect(host.reuse({})).toBeUndefined(); // launching: callers wait through acquire
    const first = await launching;
    expect(host.reuse({ headless: true })).toEqual({ running: first.running, launched: false });
    expect(() => host.reuse({ access: "system" })).toThrow(LaunchOptionsConflictError);
    expect(launches).toHaveLength(1);
  });

  it("refuses different launch options while running and says to /firefox close first", async () => {
    const { host, launches } = setup();
    await host.acquire({}, "/x");
    await expect(host.acquire({ headless: false }, "/x")).rejects.toThrow(LaunchOptionsConflictError);
    await expect(host.acquire({ access: "system" }, "/x")).rejects.toThrow(
      /already running with headless=true, access=standard; this call asked for access=system.*run \/firefox close/,
    );
    expect(launches).toHaveLength(1);
  });

  it("passes the system-access switch and relaunches with new options after close", async () => {
    const { host, launches, browsers, records, debug } = setup();
    await host.acquire({}, "/x");
    expect(await host.close("command")).toBe(true);
    expect(browsers[0]?.closedCount()).toBe(1);
    expect(await host.close("command")).toBe(false);
    const again = await host.acquire({ access: "system", headless: false }, "/x");
    expect(again.running.generation).toBe(2);
    expect(launches[1]).toEqual({ headless: false, args: [SYSTEM_ACCESS_ARG] });
    await debug.flush();
    expect(records.map((r) => [r.span, r.outcome])).toEqual([
      ["launch", "ok"],
      ["teardown", "ok"],
      ["launch", "ok"],
    ]);
  });

  it("forgets a browser that exited on its own and notes it once on the next launch", async () => {
    const { host, browsers } = setup();
    await host.acquire({}, "/x");
    browsers[0]?.crash();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(host.running).toBeUndefined();
    const next = await host.acquire({}, "/x");
    expect(next.launched).toBe(true);
    expect(host.takeExitNote()).toContain("Firefox (pid 100) exited on its own");
    expect(host.takeExitNote()).toBeUndefined();
  });

  it("records a failed launch and leaves nothing running", async () => {
    const records: DebugRecord[] = [];
    const debug = new DebugLog("t");
    debug.configure({ append: async (line) => void records.push(JSON.parse(line) as DebugRecord) });
    class FirefoxLaunchError extends Error {
      override name = "FirefoxLaunchError";
    }
    const host = new BrowserHost(
      async () => {
        throw new FirefoxLaunchError("no display");
      },
      new SpoolStore({ fs: nodeSpoolFs, prefix: "/tmp/never-used-" }),
      debug,
    );
    await expect(host.acquire({ headless: false }, "/x")).rejects.toThrow("no display");
    expect(host.running).toBeUndefined();
    await debug.flush();
    expect(records[0]).toMatchObject({
      span: "launch",
      outcome: "error",
      headless: false,
      errorKind: "FirefoxLaunchError",
    });
  });
});
