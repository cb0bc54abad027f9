/**
 * Ctrl-C reaches Firefox: the real `webbrain run` process (the bin through its tsx shim), a
 * scripted model over HTTP that starts a 60 s `wait_for_stable` on a page that never settles,
 * then SIGINT as a terminal sends it. The process must exit long before the wait would have
 * ended, say why, ask the model nothing more, and leave no Firefox process and no temp profile
 * behind.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { processGroupRuns } from "@webbrain/bidi";
import {
  type FixtureServer,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
  until,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "./run-cli.js";

/** The CLI and Firefox start in seconds each on a loaded two-core machine. */
const PROCESS_TEST_TIMEOUT_MS = 150_000;
/** The wait the model asks for: the page layer's longest. */
const WAIT_TIMEOUT_MS = 60_000;
/** Time for the executor to get from the model's answer into the wait before Ctrl-C. */
const INTO_THE_WAIT_MS = 2_000;
/** How the test polls for processes and requests: within the test's bound, every 100 ms. */
const POLLING = { timeoutMs: PROCESS_TEST_TIMEOUT_MS, intervalMs: 100 };

/** A page whose DOM changes every 40 ms: wait_for_stable never sees it settle. */
const RESTLESS_PAGE = `<!doctype html><html><head><title>Restless</title></head><body>
<p id="tick">0</p>
<script>let n = 0; setInterval(() => { document.getElementById("tick").textContent = String(++n); }, 40);</script>
</body></html>`;

let server: FixtureServer;
let llm: ScriptedLlm | undefined;

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/restless": (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { "content-type": "text/html" }).end(RESTLESS_PAGE);
      },
    },
  });
});

afterAll(async () => {
  await llm?.close();
  await server?.close();
});

/** The Firefox a process started: its pid and the `--profile` folder on its command line. */
interface LaunchedFirefox {
  pid: number;
  profileDir: string;
}

/** Firefox among the direct children of `parentPid`, read from /proc (undefined: not yet). */
async function firefoxChildOf(parentPid: number): Promise<LaunchedFirefox | undefined> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = await readFile(`/proc/${entry}/status`, "utf8");
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== parentPid) continue;
      const argv = (await readFile(`/proc/${entry}/cmdline`, "utf8")).split("\0");
      const profileAt = argv.findIndex((arg) => arg === "--profile" || arg === "-profile");
      if (!argv[0]?.includes("firefox") || profileAt === -1) continue;
      return { pid: Number(entry), profileDir: argv[profileAt + 1] ?? "" };
    } catch {
      // The process ended while we read it.
    }
  }
  return undefined;
}

describe("Ctrl-C during `webbrain run`", () => {
  it(
    "ends a 60 s wait_for_stable at once, exits with a clear message, and leaves no Firefox or profile",
    async () => {
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          {
            toolCalls: [
              { name: "wait_for_stable", arguments: { timeout_ms: WAIT_TIMEOUT_MS, quiet_ms: 2_000 } },
            ],
          },
          { text: "The page settled." },
        ],
      });
      const child = spawn(
        process.execPath,
        [
          BIN,
          "run",
          "wait until the page settles",
          "--url",
          server.url("/restless"),
          "--base-url",
          llm.baseUrl,
          "--model",
          "scripted-1",
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      let firefox: LaunchedFirefox | undefined;
      try {
        const pid = child.pid as number;
        firefox = await until(() => firefoxChildOf(pid), { message: "Firefox to start", ...POLLING });
        expect(existsSync(firefox.profileDir), firefox.profileDir).toBe(true);
        await waitFor(() => llm!.requests.length > 0, { message: "the model to be asked", ...POLLING });
        await new Promise((resolve) => setTimeout(resolve, INTO_THE_WAIT_MS));

        const interruptedAt = performance.now();
        child.kill("SIGINT");
        const code = await exited;
        const exitMs = performance.now() - interruptedAt;

        expect(code, stderr).toBe(1);
        expect(stderr).toContain("webbrain: Stopped by the user (interrupted).");
        // It did not sit out the wait: the stop reached the wait in Firefox.
        expect(exitMs, stderr).toBeLessThan(WAIT_TIMEOUT_MS / 2);
        // The wait's result never went back to the model.
        expect(llm.requests).toHaveLength(1);
        // No orphan: Firefox's whole process group is gone, and so is its temp profile.
        expect(processGroupRuns(firefox.pid)).toBe(false);
        expect(existsSync(firefox.profileDir)).toBe(false);
      } finally {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGKILL");
          await exited;
        }
        // A failed run must not leave its Firefox behind for the next test.
        if (firefox && processGroupRuns(firefox.pid)) process.kill(-firefox.pid, "SIGKILL");
        if (firefox?.profileDir) await rm(firefox.profileDir, { recursive: true, force: true });
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
