/**
 * Installable anywhere: the published packages are built to JavaScript, packed with `npm pack`,
 * installed into an empty folder outside the repository (third-party dependencies from the npm
 * cache or registry, ours only from the tarballs), and the installed `webbrain` bin prints a
 * real page's tree. The Pi package installs the same way, with `pi install`, and Pi loads it.
 *
 * One pack for the whole file: building four packages is the slow part.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type FixtureServer, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PackResult, packPackages } from "../../../scripts/pack-packages.js";

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const PI_BIN = join(ROOT, "node_modules", ".bin", "pi");
/** Building, packing and installing on a loaded two-core machine: minutes, not seconds. */
const PACK_TIMEOUT_MS = 900_000;
const STEP_TIMEOUT_MS = 300_000;

let work: string;
let packs: PackResult;
let server: FixtureServer;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "webbrain-packed-"));
  server = await startFixtureServer();
  packs = await packPackages(join(work, "packs"));
}, PACK_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the packed packages", () => {
  it(
    "install into an empty folder and `webbrain snapshot` prints the page's tree",
    async () => {
      const app = join(work, "app");
      await mkdir(app);
      await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true }));
      const ours = [
        "@webbrain/protocol",
        "@webbrain/bidi",
        "@webbrain/page",
        "@webbrain/agent",
        "@webbrain/runner",
      ].map((name) => packs.tarballs[name]!);
      await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", ...ours], {
        cwd: app,
        timeout: STEP_TIMEOUT_MS,
      });
      // Built JavaScript, not the workspace's TypeScript through tsx.
      expect(existsSync(join(app, "node_modules", "tsx"))).toBe(false);
      expect(existsSync(join(app, "node_modules", "@webbrain", "runner", "dist", "index.d.ts"))).toBe(true);
      // Each published package states the Node versions the workspace supports.
      const rootEngines = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")).engines;
      for (const name of ["protocol", "bidi", "page", "agent", "runner"]) {
        const published = JSON.parse(
          await readFile(join(app, "node_modules", "@webbrain", name, "package.json"), "utf8"),
        );
        expect(published.engines, name).toEqual(rootEngines);
      }

      // The packaged skills ship with the agent, where the runner's `--skill NAME` resolves them.
      const { stdout: skillPath } = await run(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          "import { createRequire } from 'node:module'; console.log(createRequire(process.cwd() + '/').resolve('@webbrain/agent/skills/wikipedia.md'))",
        ],
        { cwd: app, timeout: STEP_TIMEOUT_MS },
      );
      expect(await readFile(skillPath.trim(), "utf8")).toMatch(/^# Wikipedia/);

      const { stdout } = await run(
        join(app, "node_modules", ".bin", "webbrain"),
        ["snapshot", server.url("/runner/account-login.html")],
        { cwd: app, timeout: STEP_TIMEOUT_MS },
      );
      expect(stdout).toMatch(/^heading "Account"/m);
      expect(stdout).toMatch(/^\[\d+\] textbox "User name" value="alice"$/m);
      expect(stdout).toMatch(/^\[\d+\] button "Sign in"$/m);
    },
    PACK_TIMEOUT_MS,
  );

  it(
    "the Pi package installs with `pi install` and Pi loads its extension and skill",
    async () => {
      const extracted = join(work, "pi-package");
      await mkdir(extracted);
      await run("tar", ["-xzf", packs.tarballs["pi-firefox-bidi"]!, "-C", extracted]);
      const packageDir = join(extracted, "package");
      const agentDir = join(work, "pi-agent");
      await mkdir(agentDir);
      await writeFile(
        join(agentDir, "models.json"),
        JSON.stringify({
          providers: {
            scripted: {
              baseUrl: "http://127.0.0.1:9/v1",
              api: "openai-completions",
              apiKey: "x",
              models: [{ id: "scripted-1", contextWindow: 32000, maxTokens: 1024 }],
            },
          },
        }),
      );
      const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" };
      await run(PI_BIN, ["install", packageDir], { env, timeout: STEP_TIMEOUT_MS });

      const commands = await piCommands(env, work);
      const firefox = commands.find((command) => command.name === "firefox");
      expect(firefox?.source).toBe("extension");
      expect(firefox?.sourceInfo?.path).toBe(join(packageDir, "index.ts"));
      expect(commands.map((command) => command.name)).toContain("skill:firefox-bidi");
    },
    PACK_TIMEOUT_MS,
  );
});

interface PiCommand {
  name: string;
  source: string;
  sourceInfo?: { path?: string };
}

/** Starts Pi in RPC mode with the installed packages and asks for its commands. */
function piCommands(env: NodeJS.ProcessEnv, cwd: string): Promise<PiCommand[]> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      PI_BIN,
      [
        "--no-session",
        "--no-context-files",
        "--provider",
        "scripted",
        "--model",
        "scripted-1",
        "--mode",
        "rpc",
      ],
      { env, cwd, stdio: ["pipe", "pipe", "pipe"] },
    );
    let buffer = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`pi gave no get_commands answer in time; stderr: ${stderr}`));
    }, STEP_TIMEOUT_MS);
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      for (const line of buffer.split("\n").slice(0, -1)) {
        const message = JSON.parse(line) as { command?: string; data?: { commands: PiCommand[] } };
        if (message.command === "get_commands" && message.data) {
          clearTimeout(timer);
          child.kill("SIGTERM");
          resolvePromise(message.data.commands);
        }
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    });
    child.on("error", reject);
    child.stdin.write(`${JSON.stringify({ id: "commands", type: "get_commands" })}\n`);
  });
}
