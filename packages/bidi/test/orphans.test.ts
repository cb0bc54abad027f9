import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { pathExists, processGroupAlive } from "./process-probe.js";

const CHILD_SCRIPT = fileURLToPath(new URL("./fixtures/launch-and-wait.ts", import.meta.url));
/** How long a killed Firefox group may take to be reaped. */
const REAP_TIMEOUT_MS = 10_000;

interface Launched {
  child: ChildProcess;
  pid: number;
  profileDir: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
});

function launchInChild(mode: "wait" | "exit"): Promise<Launched> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD_SCRIPT, mode], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) {
        const info = JSON.parse(line) as { pid: number; profileDir: string };
        resolve({ child, exit, ...info });
      }
    });
    void exit.then(({ code, signal }) => {
      if (!out.includes("\n")) reject(new Error(`child exited early (${code ?? signal}): ${stderr}`));
    });
  });
}

async function expectGone(pid: number, profileDir: string): Promise<void> {
  await expect.poll(() => processGroupAlive(pid), { timeout: REAP_TIMEOUT_MS }).toBe(false);
  expect(pathExists(profileDir)).toBe(false);
}

describe("no orphans when the Node process ends", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`kills Firefox and removes the profile on ${signal}, then dies of ${signal}`, async () => {
      const launched = await launchInChild("wait");
      expect(processGroupAlive(launched.pid)).toBe(true);
      expect(pathExists(launched.profileDir)).toBe(true);
      launched.child.kill(signal);
      const exit = await launched.exit;
      expect(exit.signal).toBe(signal);
      await expectGone(launched.pid, launched.profileDir);
    });
  }

  it("kills Firefox and removes the profile on process.exit()", async () => {
    const launched = await launchInChild("exit");
    const exit = await launched.exit;
    expect(exit.code).toBe(7);
    await expectGone(launched.pid, launched.profileDir);
  });
});
