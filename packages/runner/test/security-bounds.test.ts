/**
 * Issue 20, point 9 and the bounds of point 12, as attacks on the real bin (real headless
 * Firefox, real HTTP): a skill endpoint that answers 300 MB, a 400 MB download, a page whose DOM
 * grows (or nests) without end, storage states and screenshot paths that are not what they
 * claim, and Firefox dying in the middle of a run. Memory is measured, not timed: the runner's
 * peak resident set (VmHWM in /proc) must stay far below what buffering the bodies would take.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  byteFlood,
  type FixtureServer,
  floodLookupSkill,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BIN, runCli, runMain } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 180_000;
const MB = 1024 * 1024;
/** Generous: node + tsx + the MCP SDK + pi-ai idle at 150-250 MB here; buffering 300 MB took 1.07 GB. */
const PEAK_RSS_BOUND_BYTES = 400 * MB;

let server: FixtureServer;
let dir = "";
let llm: ScriptedLlm | undefined;
// A skill endpoint whose tool caps its answer at 1,000 characters, sending 300 MB.
const skillFlood = byteFlood(300 * MB, { "content-type": "text/plain" });
// 400 MB without a declared length: only counting the bytes can stop it.
const hugeDownload = byteFlood(400 * MB, { "content-type": "application/octet-stream" });
// 400 MB declared up front: refused before a byte is read.
const declaredDownload = byteFlood(400 * MB, {
  "content-type": "application/octet-stream",
  "content-length": String(400 * MB),
});

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/bounds/skill-flood": skillFlood.route,
      "/bounds/huge.bin": hugeDownload.route,
      "/bounds/declared.bin": declaredDownload.route,
    },
  });
  dir = await mkdtemp(join(tmpdir(), "webbrain-bounds-"));
});

afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The process's peak resident set, from /proc (Linux). */
async function peakRssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = /^VmHWM:\s+(\d+) kB/m.exec(status);
  if (!kb) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}

function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { ...env, ...extra };
}

interface ExecAnswer {
  tool: string | null;
  result: Record<string, unknown> & { success: boolean; error?: string };
  text?: string;
}

/** `webbrain exec` driven one call at a time: each call waits for its own answer line. */
function startExec(url: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, "exec", url, ...args], {
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    pid: child.pid!,
    async call(tool: string, callArgs: Record<string, unknown> = {}): Promise<ExecAnswer> {
      child.stdin.write(`${JSON.stringify({ tool, args: callArgs })}\n`);
      const next = await answers.next();
      if (next.done) throw new Error(`exec ended before answering ${tool}: ${stderr}`);
      return JSON.parse(next.value) as ExecAnswer;
    },
    async end(): Promise<{ code: number | null; stderr: string }> {
      child.stdin.end();
      return { code: await exited, stderr };
    },
  };
}

describe("bodies are read with a cap (point 9)", () => {
  it(
    "a skill answering 300 MB is cut at its cap and the body cancelled; the runner's peak memory stays bounded",
    async () => {
      const skillFile = join(dir, "flood.md");
      await writeFile(skillFile, floodLookupSkill(server.url("/bounds/skill-flood")));
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "mcp", "--mode", "ask", "--skill", skillFile],
        env: childEnv(),
        stderr: "pipe",
      });
      const client = new Client({ name: "webbrain-bounds-test", version: "0.0.0" });
      await client.connect(transport);
      try {
        const result = await client.callTool({ name: "flood_lookup", arguments: {} });
        const text = (result.content as { type: string; text: string }[]).map((block) => block.text).join("");
        expect(text).toMatch(/^\[flood_lookup ok\]/);
        expect(text).toContain('"truncated":true');
        expect(text).toContain("a".repeat(1000));
        expect(text).not.toContain("a".repeat(1001));
        // The read stopped and the connection closed: most of the 300 MB was never sent.
        expect(skillFlood.sent).toBeLessThan(64 * MB);
        const peak = await peakRssBytes(transport.pid!);
        expect(peak).toBeLessThan(PEAK_RSS_BOUND_BYTES);
      } finally {
        await client.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "a 400 MB download stops at --max-download-mb, leaves nothing in the downloads folder, and names the flag",
    async () => {
      // The run's temp folders (downloads, Firefox profile) land in a folder this test owns.
      const temp = join(dir, "download-tmp");
      await mkdir(temp);
      const exec = startExec("about:blank", ["--max-download-mb", "5"], childEnv({ TMPDIR: temp }));
      const huge = await exec.call("download_files", { urls: [server.url("/bounds/huge.bin")] });
      expect(huge.result.success).toBe(false);
      expect(huge.result.error).toMatch(
        /over the 5 MB limit for one file; it was stopped and nothing was kept/,
      );
      expect(huge.result.error).toContain("--max-download-mb");
      expect(hugeDownload.sent).toBeLessThan(100 * MB);
      // Declared bigger than the default limit: refused before reading.
      const declared = await exec.call("download_files", { urls: [server.url("/bounds/declared.bin")] });
      expect(declared.result.error).toMatch(/is 400 MB, over the 5 MB limit/);
      const listed = await exec.call("list_downloads");
      expect(listed.result.downloads).toEqual([]);
      // No half file anywhere in the run's downloads folder, while the run is still going.
      const folders = (await readdir(temp)).filter((name) => name.startsWith("webbrain-downloads-"));
      for (const folder of folders) expect(await readdir(join(temp, folder))).toEqual([]);
      expect(await peakRssBytes(exec.pid)).toBeLessThan(PEAK_RSS_BOUND_BYTES);
      const { code } = await exec.end();
      expect(code).toBe(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe("a page whose DOM never settles (point 12)", () => {
  it(
    "answers the tree read, a click and wait_for_stable within their bounds, saying the page kept changing",
    async () => {
      // 150,000 elements at once, then 100 more every 5 ms, forever.
      const exec = startExec(
        server.url("/runner/growing-dom.html?initial=150000&batch=100&every=5"),
        [],
        childEnv(),
      );
      const tree = await exec.call("get_accessibility_tree", { max_chars: 2000 });
      expect(tree.result.success).toBe(true);
      expect(String(tree.result.tree)).toMatch(
        /… stopped reading the page after 100000 elements: it is very large or keeps growing/,
      );
      expect(tree.result.metadata).toMatchObject({ truncated: true, walk_cut: { reason: "elements" } });
      const ref = /\[(\d+)\] button "Go"/.exec(String(tree.result.tree))?.[1];
      expect(ref).toBeDefined();
      const click = await exec.call("click_ax", { ref_id: Number(ref) });
      expect(click.result.success).toBe(true);
      const wait = await exec.call("wait_for_stable", { timeout_ms: 2000 });
      // The whole answer on failure (waited_ms, mutations): a stable answer here once came from a
      // tab starved of CPU (two suites side by side), which page-tools' starved-tab test covers.
      expect(wait.result, JSON.stringify(wait.result)).toMatchObject({ success: false, stable: false });
      expect(wait.result.error).toMatch(/the page kept changing for 2000 ms/);

      // Nesting without end: 3,000 levels deep, growing deeper. The walk skips past its depth
      // limit instead of failing with "too much recursion".
      await exec.call("navigate", {
        url: server.url("/runner/growing-dom.html?initial=3000&shape=deep&every=20"),
      });
      const deep = await exec.call("get_accessibility_tree", { max_chars: 2000 });
      expect(deep.result.success).toBe(true);
      expect(String(deep.result.tree)).toMatch(/part\(s\) nested deeper than 600 levels not shown/);
      await exec.end();
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

/** A stand-in Firefox binary that leaves a mark when started: proof that no launch happened. */
async function markingFirefox(name: string): Promise<{ path: string; started: () => boolean }> {
  const path = join(dir, `${name}-firefox.sh`);
  const mark = join(dir, `${name}-started`);
  await writeFile(path, `#!/bin/sh\ntouch '${mark}'\nexit 1\n`);
  await chmod(path, 0o755);
  return { path, started: () => existsSync(mark) };
}

describe("bad input files get one line and exit 2 before Firefox starts (point 12)", () => {
  it(
    "a storage state that is not JSON, or is a list, is refused in one line without launching Firefox",
    async () => {
      const firefox = await markingFirefox("state");
      const notJson = join(dir, "not-json.json");
      const list = join(dir, "list.json");
      await writeFile(notJson, "cookies=yes\nnot json at all\n");
      await writeFile(list, "[1,2,3]");
      for (const [file, why] of [
        [notJson, /is not JSON \(/],
        [list, /is not one: a list, not an object/],
      ] as const) {
        // Asked of main in this process (run-cli.ts runMain), which collects all it prints.
        const run = await runMain([
          "snapshot",
          "about:blank",
          "--storage-state",
          file,
          "--firefox",
          firefox.path,
        ]);
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(new RegExp(`^webbrain: --storage-state: The storage state ${file} `));
        expect(run.stderr).toMatch(why);
        expect(run.stderr.trim().split("\n")).toHaveLength(1);
        expect(run.stderr).not.toMatch(/\n\s+at /);
      }
      expect(firefox.started()).toBe(false);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "a screenshot into a missing folder is refused in one line before Firefox starts",
    async () => {
      const firefox = await markingFirefox("shot");
      const out = join(dir, "no-such-folder", "shot.png");
      const run = await runMain(["screenshot", "about:blank", "-o", out, "--firefox", firefox.path]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `webbrain: -o ${out}: the folder ${join(dir, "no-such-folder")} does not exist; create it or write elsewhere.\n`,
      );
      expect(firefox.started()).toBe(false);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe("Firefox dying mid-run (point 12)", () => {
  it(
    "ends the run at once: at most one more model request, exit 3, and --json prints the summary with the error",
    async () => {
      let firefoxPid: number | undefined;
      let requestsAtKill = 0;
      const tree = { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          tree,
          () => {
            // Mid-task: the model has read the page once; kill Firefox as a crash would.
            requestsAtKill = llm!.requests.length;
            process.kill(firefoxPid!, "SIGKILL");
            return tree;
          },
          // A loop that kept going would ask for all of these.
          ...Array.from({ length: 10 }, () => tree),
        ],
      });
      const run = await runCli(
        [
          "run",
          "read the page twice",
          "--url",
          server.url("/runner/trusted-only.html"),
          "--base-url",
          llm.baseUrl,
          "--json",
        ],
        {
          onStderr: (text) => {
            const match = /launched, pid (\d+),/.exec(text);
            if (match && firefoxPid === undefined) firefoxPid = Number(match[1]);
          },
        },
      );
      expect(firefoxPid).toBeDefined();
      expect(requestsAtKill).toBe(2);
      expect(llm.requests.length - requestsAtKill).toBeLessThanOrEqual(1);
      expect(run.code).toBe(3);
      const summary = JSON.parse(run.stdout) as { status: string; error?: { kind: string; message: string } };
      expect(summary.status).toBe("error");
      expect(summary.error?.kind).toBe("browser_unavailable");
      expect(summary.error?.message).toMatch(
        /^Firefox went away while the command ran: .*exited unexpectedly/,
      );
      expect(run.stderr).toMatch(
        /webbrain: Firefox went away while the command ran: .*run the command again/,
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
