import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTab,
  evaluate,
  type FirefoxBrowser,
  FirefoxLaunchError,
  FirefoxNotFoundError,
  launchFirefox,
  resolveFirefoxExecutable,
  startFirefoxProcess,
} from "../src/index.js";
import { pathExists, processGroupAlive } from "./process-probe.js";

const EXTRA_TAB_URL = "about:robots";
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "bidi-launcher-test-"));
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function script(name: string, body: string): string {
  const path = join(scratch, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("launchFirefox", () => {
  it("launches headless Firefox with a BiDi session and leaves nothing behind on close", async () => {
    let browser: FirefoxBrowser | undefined;
    try {
      browser = await launchFirefox();
      expect(browser.browserName).toBe("firefox");
      expect(browser.browserVersion).toMatch(/^\d+\./);
      expect(browser.wsEndpoint).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
      expect(pathExists(join(browser.profileDir, "user.js"))).toBe(true);
      expect(processGroupAlive(browser.pid)).toBe(true);
      const status = await browser.client.send("session.status", {});
      expect(status.ready).toBe(false); // one session per Firefox, and we hold it
    } finally {
      await browser?.close();
    }
    expect(processGroupAlive(browser.pid)).toBe(false);
    expect(pathExists(browser.profileDir)).toBe(false);
    expect(browser.client.closed).toBe(true);
  });

  it("fails with FirefoxNotFoundError naming a bad executable path", async () => {
    const missing = join(scratch, "no-such-firefox");
    const err = await launchFirefox({ executablePath: missing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FirefoxNotFoundError);
    expect((err as Error).message).toContain(missing);
    expect((err as Error).message).toContain("apt-get install -y firefox-esr");
  });

  it("reports a Firefox that exits at once, with its stderr, and removes the profile", async () => {
    const exe = script("firefox-dies", 'echo "fake firefox: cannot open display" >&2\nexit 3');
    const before = Date.now();
    const err = await launchFirefox({ executablePath: exe }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FirefoxLaunchError);
    expect((err as Error).message).toContain("exited during startup (exit code 3)");
    expect((err as FirefoxLaunchError).stderrTail).toContain("fake firefox: cannot open display");
    expect(Date.now() - before).toBeLessThan(10_000);
  });

  it("bounds a startup that never offers an endpoint and kills the process", async () => {
    const pidFile = join(scratch, "hang.pid");
    const exe = script("firefox-hangs", `echo $$ > ${pidFile}\necho "starting forever" >&2\nexec sleep 60`);
    const err = await launchFirefox({ executablePath: exe, startupTimeoutMs: 1_500 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FirefoxLaunchError);
    expect((err as Error).message).toContain("no WebDriver BiDi endpoint within 1500 ms");
    expect((err as FirefoxLaunchError).stderrTail).toContain("starting forever");
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(processGroupAlive(pid)).toBe(false);
  });
});

describe("a process that claims an endpoint but is not Firefox", () => {
  // Prints the endpoint line for a port nobody listens on, then ignores SIGTERM and waits.
  const fakeBody = (pidFile: string) =>
    `echo $$ > ${pidFile}\ntrap '' TERM\necho "WebDriver BiDi listening on ws://127.0.0.1:1" >&2\nwhile :; do sleep 1; done`;

  it("fails the launch clearly when the session cannot be opened, killing the process", async () => {
    const pidFile = join(scratch, "fake-endpoint.pid");
    const exe = script("firefox-fake-endpoint", fakeBody(pidFile));
    const err = await launchFirefox({ executablePath: exe }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FirefoxLaunchError);
    expect((err as Error).message).toContain("the BiDi session could not be opened at ws://127.0.0.1:1");
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(processGroupAlive(pid)).toBe(false);
  });

  it("kills a process that ignores shutdown once the grace period is over, and removes the profile", async () => {
    const pidFile = join(scratch, "stubborn.pid");
    const proc = await startFirefoxProcess({ executablePath: script("firefox-stubborn", fakeBody(pidFile)) });
    expect(proc.wsEndpoint).toBe("ws://127.0.0.1:1");
    expect(pathExists(proc.profileDir)).toBe(true);
    process.kill(proc.pid, "SIGTERM"); // ignored by the script
    await proc.dispose(200);
    expect(await proc.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(processGroupAlive(proc.pid)).toBe(false);
    expect(pathExists(proc.profileDir)).toBe(false);
  });
});

describe("launch options", () => {
  it("finds the endpoint through WebDriverBiDiServer.json when stderr says nothing", async () => {
    const real = resolveFirefoxExecutable();
    const exe = script("firefox-silent", `exec "${real}" "$@" 2>/dev/null`);
    const browser = await launchFirefox({ executablePath: exe });
    try {
      expect(browser.browserName).toBe("firefox");
      const status = await browser.client.send("session.status", {});
      expect(status.ready).toBe(false);
    } finally {
      await browser.close();
    }
  });

  it("applies extra prefs and arguments", async () => {
    const browser = await launchFirefox({
      prefs: { "general.useragent.override": "WebBrainTest/1.0" },
      // An extra URL argument opens an extra tab: visible proof that args reach Firefox.
      args: [EXTRA_TAB_URL],
    });
    try {
      const context = await createTab(browser.client);
      expect(await evaluate(browser.client, context, "navigator.userAgent")).toBe("WebBrainTest/1.0");
      await expect
        .poll(async () => {
          const tree = await browser.client.send("browsingContext.getTree", { maxDepth: 0 });
          return tree.contexts.map((c) => c.url);
        })
        .toContain(EXTRA_TAB_URL);
    } finally {
      await browser.close();
    }
  });

  it("launches headed on request: without a display that fails with a clear hint", async () => {
    const env = { ...process.env };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    const err = await launchFirefox({ headless: false, env }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FirefoxLaunchError);
    expect((err as Error).message).toContain("Headed mode needs a display");
    expect((err as FirefoxLaunchError).stderrTail).toMatch(/DISPLAY/);
  });

  it("rejects a fractional number pref before starting anything", async () => {
    await expect(launchFirefox({ prefs: { "layout.css.devPixelsPerPx": 1.5 } })).rejects.toThrow(
      /not an integer/,
    );
  });
});

describe("resolveFirefoxExecutable", () => {
  it("prefers the explicit path, then FIREFOX_BIN, then firefox and firefox-esr on PATH", () => {
    const dirA = mkdtempSync(join(scratch, "path-a-"));
    const dirB = mkdtempSync(join(scratch, "path-b-"));
    const esrOnly = join(dirA, "firefox-esr");
    writeFileSync(esrOnly, "#!/bin/sh\n");
    chmodSync(esrOnly, 0o755);
    const plain = join(dirB, "firefox");
    writeFileSync(plain, "#!/bin/sh\n");
    chmodSync(plain, 0o755);
    const PATH = `${dirA}:${dirB}`;
    // `firefox` anywhere on PATH beats `firefox-esr` earlier on PATH.
    expect(resolveFirefoxExecutable(undefined, { PATH })).toBe(plain);
    expect(resolveFirefoxExecutable(undefined, { PATH, FIREFOX_BIN: esrOnly })).toBe(esrOnly);
    expect(resolveFirefoxExecutable(esrOnly, { PATH, FIREFOX_BIN: plain })).toBe(esrOnly);
    expect(resolveFirefoxExecutable(undefined, { PATH: dirA })).toBe(esrOnly);
  });

  it("names every candidate tried when nothing is found", () => {
    const empty = mkdtempSync(join(scratch, "empty-"));
    let err: unknown;
    try {
      resolveFirefoxExecutable(undefined, { PATH: empty });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FirefoxNotFoundError);
    expect((err as FirefoxNotFoundError).tried).toEqual([join(empty, "firefox"), join(empty, "firefox-esr")]);
    expect((err as Error).message).toContain("FIREFOX_BIN");
  });

  it("rejects a FIREFOX_BIN that is not executable instead of skipping it", () => {
    const notExec = join(scratch, "not-exec");
    writeFileSync(notExec, "");
    expect(() => resolveFirefoxExecutable(undefined, { FIREFOX_BIN: notExec, PATH: "/usr/bin" })).toThrow(
      /FIREFOX_BIN=.* is not executable/,
    );
  });
});
