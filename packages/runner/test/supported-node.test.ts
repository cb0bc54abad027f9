/**
 * scripts/supported-node: the Node versions the project supports, and the re-run on Node 26 that
 * lets `npm test` and the workspace bins work on a machine whose Node is older (Debian's Node 20).
 */
import { execFile } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { isSupported } from "../../../scripts/supported-node-lib.mjs";

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const versions = JSON.parse(readFileSync(join(ROOT, "scripts/node-versions.json"), "utf8")) as {
  current: string;
  oldest: string;
};

/** The first `node` on PATH outside the checkout's .artifacts: the machine's own Node. */
function machineNode(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "" || dir.includes(".artifacts")) continue;
    const candidate = join(dir, "node");
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    return candidate;
  }
  return undefined;
}

describe("supported-node.mjs bin", () => {
  it("prints only the bin folder on stdout (.ci/run puts it on PATH), the Node there being the one asked for", async () => {
    const script = join(ROOT, "scripts/supported-node.mjs");
    for (const which of ["current", "oldest"] as const) {
      const { stdout } = await run(process.execPath, [script, "bin", which], { timeout: 120_000 });
      const lines = stdout.split("\n").filter((line) => line !== "");
      expect(lines).toHaveLength(1);
      const node = join(lines[0]!, "node");
      expect((await run(node, ["-p", "process.versions.node"])).stdout.trim()).toBe(versions[which]);
    }
  });
});

describe("supported Node versions", () => {
  it("are the maintained LTS lines: 22, 24, 26 and later, never 20 or an odd release", () => {
    expect(["20.20.2", "21.7.0", "23.11.0", "25.2.0"].map(isSupported)).toEqual([false, false, false, false]);
    expect(["22.13.0", "24.22.3", "26.12.1", "28.0.0"].map(isSupported)).toEqual([true, true, true, true]);
    expect(isSupported(versions.current)).toBe(true);
    expect(isSupported(versions.oldest)).toBe(true);
  });

  it("agree with the engines field every package states", () => {
    const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      engines: { node: string };
    };
    const packages = ["agent", "bidi", "extension", "page", "pi-firefox-bidi", "runner", "testkit"];
    for (const name of packages) {
      const manifest = JSON.parse(readFileSync(join(ROOT, "packages", name, "package.json"), "utf8")) as {
        engines?: { node?: string };
      };
      expect(manifest.engines?.node, name).toBe(root.engines.node);
    }
    expect(root.engines.node).toBe("^22.13.0 || ^24.0.0 || >=26.0.0");
  });
});

const oldNode = machineNode();
const oldMajor = oldNode
  ? Number((await run(oldNode, ["-p", "process.versions.node"])).stdout.trim().split(".")[0])
  : undefined;

// This machine kind ships Node 20; where the machine's Node is already supported there is no
// older Node to start the script with, and this case has nothing to show.
describe.skipIf(oldMajor === undefined || oldMajor >= 22)("on the machine's end-of-life Node", () => {
  it("runs the command on the current LTS, says so in one line, and passes the exit code on", async () => {
    const script = join(ROOT, "scripts/supported-node.mjs");
    const probe = "console.log(process.version); process.exitCode = 3";
    const error = (await run(oldNode!, [script, "run", "--", "node", "-e", probe], {
      timeout: 120_000,
    }).catch((e: unknown) => e)) as { code: number; stdout: string; stderr: string };
    expect(error.code).toBe(3);
    expect(error.stdout.trim()).toBe(`v${versions.current}`);
    expect(error.stderr).toMatch(/is past its end of life; running on Node \d+\.\d+\.\d+ from .*\.artifacts/);
  });

  it("the workspace `webbrain` bin re-runs itself on the current LTS", async () => {
    const bin = join(ROOT, "packages/runner/bin/webbrain.js");
    const { stdout, stderr } = await run(oldNode!, [bin, "--help"], { timeout: 120_000 });
    expect(stdout).toMatch(/^Usage: webbrain/m);
    expect(stderr).toMatch(/past its end of life/);
  });
});
