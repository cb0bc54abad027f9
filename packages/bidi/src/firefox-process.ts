/**
 * Starts a Firefox process with a fresh temp profile and discovers its WebDriver BiDi endpoint.
 * No BiDi session is created here (see launcher.ts): this is the process layer only.
 *
 * Invariants:
 * - Firefox runs in its own process group (detached), so one kill reaches the parent and its
 *   content processes alike; the group is killed again after the parent exits to catch stragglers.
 * - Until `dispose()`, the process is registered with the orphan guard, and a watchdog process
 *   (firefox-watchdog.ts) kills it and removes a temp profile if this Node process dies in a way
 *   no handler sees (`kill -9`).
 * - Startup is bounded: an endpoint within `startupTimeoutMs`, or the process is killed, the
 *   profile removed and a FirefoxLaunchError carrying the stderr tail thrown.
 * - Endpoint discovery reads stderr ("WebDriver BiDi listening on ws://...") and, in case that
 *   line is missed, polls `WebDriverBiDiServer.json` in the profile.
 * - stdout/stderr are always drained so a chatty Firefox never blocks on a full pipe.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { FirefoxLaunchError } from "./errors.js";
import { resolveFirefoxExecutable } from "./firefox-executable.js";
import {
  createTempProfile,
  type PrefValue,
  preparePersistentProfile,
  removeProfileSync,
} from "./firefox-profile.js";
import { startFirefoxWatchdog } from "./firefox-watchdog.js";
import { guardResource } from "./orphan-guard.js";
import { processGroupRuns } from "./process-state.js";

export interface StartFirefoxOptions {
  executablePath?: string;
  /** Default true. */
  headless?: boolean;
  /** Extra command-line arguments, appended after ours. */
  args?: string[];
  /**
   * A persistent profile folder the user owns (logged-in sessions): used as is, created if
   * missing, refused while another Firefox holds it, never removed. Default: a fresh temp profile.
   */
  profileDir?: string;
  /** Extra prefs for user.js; they override ours. */
  prefs?: Record<string, PrefValue>;
  /** A seed profile (seed-profile.ts) a temp profile starts as a copy of; ignored with profileDir. */
  seedProfileDir?: string;
  /** How long Firefox may take to offer a BiDi endpoint. */
  startupTimeoutMs?: number;
  /** Environment for Firefox (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

export interface FirefoxExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface FirefoxProcess {
  readonly pid: number;
  readonly executablePath: string;
  readonly profileDir: string;
  /** Whether the profile is a throw-away one made for this launch (removed at dispose). */
  readonly temporaryProfile: boolean;
  /** Base endpoint, e.g. ws://127.0.0.1:41234 (append /session for a new session). */
  readonly wsEndpoint: string;
  /** Resolves when the main Firefox process has exited. */
  readonly exited: Promise<FirefoxExit>;
  readonly hasExited: boolean;
  /** Last lines of Firefox's stdout+stderr. */
  outputTail(): string;
  /** SIGKILL to the whole process group; safe to call any time. */
  killGroup(): void;
  /** Waits up to `graceMs` for exit, then kills; always removes the profile and unregisters. */
  dispose(graceMs: number): Promise<void>;
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
/** How often the WebDriverBiDiServer.json fallback is polled during startup. */
const ENDPOINT_FILE_POLL_MS = 100;
const ENDPOINT_FILE = "WebDriverBiDiServer.json";
const ENDPOINT_LINE = /WebDriver BiDi listening on (ws:\/\/[^\s]+)/;
/** Output kept for error messages. */
const OUTPUT_TAIL_LINES = 30;

/** Builds the command line; exported for tests and diagnostics. */
export function firefoxArgs(profileDir: string, headless: boolean, extra: string[]): string[] {
  return [
    "--no-remote",
    "--profile",
    profileDir,
    "--remote-debugging-port",
    "0",
    ...(headless ? ["--headless"] : []),
    ...extra,
    "about:blank",
  ];
}

class OutputTail {
  #lines: string[] = [];
  #partial = "";
  onLine: (line: string) => void = () => {};
  push(chunk: string): void {
    const parts = (this.#partial + chunk).split("\n");
    this.#partial = parts.pop() ?? "";
    for (const line of parts) {
      this.#lines.push(line);
      if (this.#lines.length > OUTPUT_TAIL_LINES) this.#lines.shift();
      this.onLine(line);
    }
  }
  text(): string {
    return [...this.#lines, ...(this.#partial ? [this.#partial] : [])].join("\n").trim();
  }
}

function describeExit(exit: FirefoxExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

export { describeExit };

/** Upper bound on waiting for killed content processes to be reaped. */
const GROUP_REAP_TIMEOUT_MS = 3_000;
const GROUP_REAP_POLL_MS = 20;

/** Waits until no process of the group runs (SIGKILLed children take a moment to die). */
async function waitForGroupGone(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + GROUP_REAP_TIMEOUT_MS;
  while (processGroupRuns(pid) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, GROUP_REAP_POLL_MS));
  }
}

function killGroupOf(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

export async function startFirefoxProcess(opts: StartFirefoxOptions = {}): Promise<FirefoxProcess> {
  const executablePath = resolveFirefoxExecutable(opts.executablePath, opts.env ?? process.env);
  const startupTimeoutMs = opts.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const headless = opts.headless ?? true;
  const persistent = opts.profileDir !== undefined;
  let profileDir: string;
  if (opts.profileDir !== undefined) {
    profileDir = opts.profileDir;
    preparePersistentProfile(profileDir, opts.prefs);
  } else {
    profileDir = createTempProfile(opts.prefs, opts.seedProfileDir);
  }
  // Only a profile we made is ours to delete.
  const removeOwnProfile = () => {
    if (!persistent) removeProfileSync(profileDir);
  };
  const env: NodeJS.ProcessEnv = {
    ...(opts.env ?? process.env),
    // A crash report dialog or upload would hang or leak; we report crashes ourselves.
    MOZ_CRASHREPORTER_DISABLE: "1",
    MOZ_CRASHREPORTER_SHUTDOWN: "1",
  };

  let child: ChildProcess;
  try {
    child = spawn(executablePath, firefoxArgs(profileDir, headless, opts.args ?? []), {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
  } catch (err) {
    removeOwnProfile();
    throw new FirefoxLaunchError(`Could not spawn ${executablePath}: ${(err as Error).message}`, "");
  }

  // Firefox leads its own process group (detached): the group id is its pid.
  const watchdog =
    child.pid !== undefined
      ? startFirefoxWatchdog(child.pid, persistent ? undefined : profileDir)
      : undefined;

  const tail = new OutputTail();
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => tail.push(chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => tail.push(chunk));

  let hasExited = false;
  const exited = new Promise<FirefoxExit>((resolve) => {
    child.once("exit", (code, signal) => {
      hasExited = true;
      resolve({ code, signal });
    });
  });
  const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));

  let disposed = false;
  const killNowSync = () => {
    killGroupOf(child);
    watchdog?.disarm();
    removeOwnProfile();
  };
  const unguard = guardResource({ killNowSync });

  const dispose = async (graceMs: number): Promise<void> => {
    if (disposed) return;
    disposed = true;
    if (!hasExited && child.pid !== undefined) {
      const timer = setTimeout(() => killGroupOf(child), graceMs);
      await exited;
      clearTimeout(timer);
    }
    killGroupOf(child); // content processes that outlived the parent
    await waitForGroupGone(child.pid);
    watchdog?.disarm();
    removeOwnProfile();
    unguard();
  };

  const wsEndpoint = await discoverEndpoint(tail, profileDir, exited, spawnError, startupTimeoutMs).catch(
    async (err: Error) => {
      killGroupOf(child);
      await dispose(0);
      const output = tail.text();
      const hint =
        !headless && /DISPLAY|cannot open display/i.test(output)
          ? "Headed mode needs a display: set DISPLAY (or run under xvfb-run), or launch headless."
          : "Check that it is a working Firefox build (run it with --version) and see its output below.";
      throw new FirefoxLaunchError(
        `Firefox (${executablePath}) did not start: ${err.message}. ${hint}`,
        output,
      );
    },
  );

  return {
    pid: child.pid ?? -1,
    executablePath,
    profileDir,
    temporaryProfile: !persistent,
    wsEndpoint,
    exited,
    get hasExited() {
      return hasExited;
    },
    outputTail: () => tail.text(),
    killGroup: () => killGroupOf(child),
    dispose,
  };
}

function discoverEndpoint(
  tail: OutputTail,
  profileDir: string,
  exited: Promise<FirefoxExit>,
  spawnError: Promise<Error>,
  timeoutMs: number,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let done = false;
    const finish = (err: Error | null, endpoint?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timeout);
      clearInterval(poll);
      tail.onLine = () => {};
      if (err) reject(err);
      else resolve(endpoint ?? "");
    };
    tail.onLine = (line) => {
      const match = ENDPOINT_LINE.exec(line);
      if (match?.[1]) finish(null, match[1]);
    };
    const poll = setInterval(() => {
      readFile(join(profileDir, ENDPOINT_FILE), "utf8")
        .then((text) => {
          const info = JSON.parse(text) as { ws_host?: string; ws_port?: number };
          if (info.ws_host && info.ws_port) finish(null, `ws://${info.ws_host}:${info.ws_port}`);
        })
        .catch(() => {}); // not written yet, or half-written: try again next tick
    }, ENDPOINT_FILE_POLL_MS);
    const timeout = setTimeout(
      () => finish(new Error(`no WebDriver BiDi endpoint within ${timeoutMs} ms`)),
      timeoutMs,
    );
    void exited.then((exit) => finish(new Error(`it exited during startup (${describeExit(exit)})`)));
    void spawnError.then((err) => finish(new Error(`spawn failed: ${err.message}`)));
  });
}
