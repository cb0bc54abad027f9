/**
 * No orphan with an open port (issue 20, point 10): `kill -9` of the runner left its headless
 * Firefox alive, listening on its BiDi port with no authentication, and its temp profile on
 * disk. The real `webbrain exec` bin is killed with SIGKILL (no handler of ours can run); within
 * a bound its Firefox must be gone, the BiDi port must refuse connections, and the temp profile
 * must be removed (by the watchdog the launcher starts). When even the watchdog dies with it,
 * the next start of webbrain removes the dead run's temp profile.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import { connect } from "node:net";
import { type FixtureServer, startFixtureServer, until, waitFor } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, runCli } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 180_000;
/** How long the watchdog may take to kill Firefox and remove its profile after the runner died. */
const CLEANUP_BOUND_MS = 15_000;
const POLL_MS = 100;
/** What the cleanup checks wait: within the watchdog's bound, every POLL_MS. */
const CLEANUP_POLLING = { timeoutMs: CLEANUP_BOUND_MS, intervalMs: POLL_MS };

let server: FixtureServer;
const spawned: ChildProcess[] = [];

beforeAll(async () => {
  server = await startFixtureServer();
});

afterAll(async () => {
  for (const child of spawned)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await server?.close();
});

interface ProcessInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
  argv: string[];
}

async function processes(): Promise<ProcessInfo[]> {
  const out: ProcessInfo[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid pgrp ...: comm may hold spaces, so split after its closing paren
      const [state = "", ppid = "", pgrp = ""] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const argv = (await readFile(`/proc/${entry}/cmdline`, "utf8")).split("\0");
      out.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp), state, argv });
    } catch {
      // The process ended while we read it.
    }
  }
  return out;
}

/** Processes of the group that still run (zombies wait only for their reaper). */
async function liveGroupMembers(pgrp: number): Promise<ProcessInfo[]> {
  return (await processes()).filter((p) => p.pgrp === pgrp && p.state !== "Z");
}

interface LaunchedFirefox {
  pid: number;
  profileDir: string;
  port: number;
}

/** The runner's Firefox (a direct child with --profile) once its BiDi endpoint file is written. */
async function firefoxOf(runnerPid: number): Promise<LaunchedFirefox | undefined> {
  const firefox = (await processes()).find(
    (p) => p.ppid === runnerPid && p.argv[0]?.includes("firefox") && p.argv.includes("--profile"),
  );
  if (!firefox) return undefined;
  const profileDir = firefox.argv[firefox.argv.indexOf("--profile") + 1] ?? "";
  try {
    const info = JSON.parse(await readFile(`${profileDir}/WebDriverBiDiServer.json`, "utf8")) as {
      ws_port: number;
    };
    return { pid: firefox.pid, profileDir, port: info.ws_port };
  } catch {
    return undefined; // not written yet
  }
}

async function watchdogOf(firefoxPid: number): Promise<number | undefined> {
  return (await processes()).find(
    (p) => p.argv.includes("webbrain-firefox-watchdog") && p.argv.includes(String(firefoxPid)),
  )?.pid;
}

/** "open" when something accepts a TCP connection on the port, else the error code. */
function probePort(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve("open");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** `webbrain exec URL` with stdin held open: it launches Firefox and waits for calls. */
async function startExec(): Promise<{
  child: ChildProcess;
  exited: Promise<unknown>;
  firefox: LaunchedFirefox;
}> {
  const child = spawn(process.execPath, [BIN, "exec", server.url("/runner/account-login.html")], {
    stdio: ["pipe", "ignore", "pipe"],
  });
  spawned.push(child);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const firefox = await until(() => firefoxOf(child.pid as number), {
    message: "Firefox to listen",
    timeoutMs: PROCESS_TEST_TIMEOUT_MS / 2,
    intervalMs: POLL_MS,
  });
  return { child, exited, firefox };
}

async function killLeftovers(firefox: LaunchedFirefox | undefined): Promise<void> {
  if (!firefox) return;
  try {
    process.kill(-firefox.pid, "SIGKILL");
  } catch {
    // gone, as it should be
  }
  await rm(firefox.profileDir, { recursive: true, force: true });
}

describe("kill -9 of the runner", () => {
  it(
    "takes its Firefox down with it: process group gone, BiDi port closed, temp profile removed",
    async () => {
      let firefox: LaunchedFirefox | undefined;
      try {
        const run = await startExec();
        firefox = run.firefox;
        expect(await probePort(firefox.port)).toBe("open");
        expect(existsSync(firefox.profileDir)).toBe(true);

        run.child.kill("SIGKILL");
        await run.exited;
        const { pid, port, profileDir } = firefox;
        await waitFor(async () => (await liveGroupMembers(pid)).length === 0, {
          message: "Firefox's process group to end",
          ...CLEANUP_POLLING,
        });
        await waitFor(async () => (await probePort(port)) === "ECONNREFUSED", {
          message: "the BiDi port to refuse",
          ...CLEANUP_POLLING,
        });
        await waitFor(() => !existsSync(profileDir), {
          message: "the temp profile to be removed",
          ...CLEANUP_POLLING,
        });
        // The watchdog did its job and ends: removing the profile is its last act, so it may still
        // be there a moment after the folder is gone (seen once in a clean-clone run).
        await waitFor(async () => (await watchdogOf(pid)) === undefined, {
          message: "the watchdog to end after its cleanup",
          ...CLEANUP_POLLING,
        });
      } finally {
        await killLeftovers(firefox);
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "when runner, watchdog and Firefox all die at once, the next start removes the dead run's profile",
    async () => {
      let firefox: LaunchedFirefox | undefined;
      try {
        const run = await startExec();
        firefox = run.firefox;
        const watchdog = await watchdogOf(firefox.pid);
        expect(watchdog).toBeDefined();
        // A power cut, as far as these processes can tell: nothing of ours gets to run.
        process.kill(watchdog as number, "SIGKILL");
        run.child.kill("SIGKILL");
        process.kill(-firefox.pid, "SIGKILL");
        await run.exited;
        const { pid, profileDir } = firefox;
        await waitFor(async () => (await liveGroupMembers(pid)).length === 0, {
          message: "Firefox's process group to end",
          ...CLEANUP_POLLING,
        });
        expect(existsSync(profileDir)).toBe(true); // left behind, as after a power cut

        const next = await runCli(["snapshot", server.url("/runner/account-login.html")]);
        expect(next.code, next.stderr).toBe(0);
        expect(existsSync(profileDir)).toBe(false);
      } finally {
        await killLeftovers(firefox);
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
