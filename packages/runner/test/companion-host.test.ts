/**
 * The companion without Firefox: native-messaging framing, `webbrain companion install` /
 * `uninstall` into a folder, and the installed wrapper run as Firefox runs it (a child whose
 * stdin carries framed requests): it answers `hello` with why there is no BiDi, and exits when
 * its stdin ends. The Firefox side is companion-firefox.test.ts.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPANION_HOST_NAME, type CompanionHello, type CompanionResponse } from "@webbrain/protocol";
import { afterEach, describe, expect, it } from "vitest";
import {
  encodeNativeMessage,
  MAX_OUTGOING_BYTES,
  NativeMessageReader,
  NativeMessageTooLargeError,
} from "../src/companion/native-messaging.js";
import { runMain } from "./run-cli.js";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "webbrain-companion-test-"));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("native-messaging framing", () => {
  it("reads messages split across chunks and several in one chunk, in order", () => {
    const bytes = Buffer.concat([
      encodeNativeMessage({ id: 1, text: "ä€😀" }),
      encodeNativeMessage({ id: 2 }),
      encodeNativeMessage([3]),
    ]);
    const reader = new NativeMessageReader();
    const seen: unknown[] = [];
    // One byte at a time: every header and body boundary falls inside a chunk at some point.
    for (let i = 0; i < bytes.length; i++) seen.push(...reader.push(bytes.subarray(i, i + 1)));
    expect(seen).toEqual([{ id: 1, text: "ä€😀" }, { id: 2 }, [3]]);
    expect(reader.pendingBytes).toBe(0);
    expect(new NativeMessageReader().push(bytes)).toEqual(seen);
  });

  it("writes a little-endian length of the UTF-8 bytes, and refuses what Firefox would drop", () => {
    const frame = encodeNativeMessage({ t: "é" });
    expect(frame.readUInt32LE(0)).toBe(Buffer.byteLength('{"t":"é"}'));
    expect(frame.subarray(4).toString("utf8")).toBe('{"t":"é"}');
    expect(() => encodeNativeMessage({ t: "x".repeat(MAX_OUTGOING_BYTES) })).toThrow(
      NativeMessageTooLargeError,
    );
  });

  it("throws on a header no real message has, rather than buffering without bound", () => {
    const header = Buffer.alloc(4);
    header.writeUInt32LE(0xffff_ffff, 0);
    expect(() => new NativeMessageReader().push(header)).toThrow(/stream is broken/);
  });
});

interface Child {
  send(message: unknown): void;
  next(): Promise<CompanionResponse>;
  end(): void;
  exited: Promise<number | null>;
}

function startHost(wrapper: string, env: NodeJS.ProcessEnv = process.env): Child {
  const child = spawn(wrapper, ["/path/of/manifest.json", "webbrain@webbrain.dev"], {
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const reader = new NativeMessageReader();
  const queue: CompanionResponse[] = [];
  const waiting: ((r: CompanionResponse) => void)[] = [];
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  child.stdout.on("data", (chunk: Buffer) => {
    for (const message of reader.push(chunk) as CompanionResponse[]) {
      const wake = waiting.shift();
      if (wake) wake(message);
      else queue.push(message);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    send: (message) => child.stdin.write(encodeNativeMessage(message)),
    next: () => {
      const ready = queue.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        waiting.push(resolve);
        void exited.then((code) =>
          reject(new Error(`the host exited (${code}) before answering: ${stderr}`)),
        );
      });
    },
    end: () => child.stdin.end(),
    exited,
  };
}

// install and uninstall only write and remove files (in the HOME and folders given through the
// command's environment): asked of main in this process (run-cli.ts runMain). The host itself
// runs as the process Firefox starts, below.
describe("webbrain companion install / uninstall", () => {
  it("writes the manifest Firefox reads and the wrapper it names, prints both, and uninstall removes them", async () => {
    const dir = await tempDir();
    const installed = await runMain(["companion", "install", "--dir", dir]);
    expect(installed.code, installed.stderr).toBe(0);
    const manifestFile = join(dir, `${COMPANION_HOST_NAME}.json`);
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: COMPANION_HOST_NAME,
      type: "stdio",
      allowed_extensions: ["webbrain@webbrain.dev"],
    });
    const wrapper = String(manifest.path);
    expect(wrapper.startsWith("/")).toBe(true);
    expect((await stat(wrapper)).mode & 0o111).not.toBe(0);
    expect(installed.stdout).toBe(`wrote ${manifestFile}\nwrote ${wrapper}\n`);

    const removed = await runMain(["companion", "uninstall", "--dir", dir]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe(`removed ${manifestFile}\nremoved ${wrapper}\n`);
    await expect(stat(manifestFile)).rejects.toThrow(/ENOENT/);
    await expect(stat(wrapper)).rejects.toThrow(/ENOENT/);
    expect((await runMain(["companion", "uninstall", "--dir", dir])).stdout).toBe("nothing to remove\n");
  });

  it("installs under HOME's ~/.mozilla/native-messaging-hosts by default", async () => {
    const home = await tempDir();
    const installed = await runMain(["companion", "install"], { env: { HOME: home } });
    expect(installed.code, installed.stderr).toBe(0);
    const manifestFile = join(home, ".mozilla", "native-messaging-hosts", `${COMPANION_HOST_NAME}.json`);
    expect(installed.stdout).toContain(`wrote ${manifestFile}\n`);
    await stat(manifestFile);
  });

  it("--launcher writes a desktop entry that starts Firefox with BiDi and prints the alias; uninstall removes it", async () => {
    const home = await tempDir();
    const installed = await runMain(["companion", "install", "--launcher"], {
      env: { HOME: home, XDG_DATA_HOME: "" },
    });
    expect(installed.code, installed.stderr).toBe(0);
    const entry = join(home, ".local", "share", "applications", "firefox-webbrain.desktop");
    expect(installed.stdout).toContain(`wrote ${entry}\n`);
    expect(installed.stdout).toContain("alias firefox-webbrain='firefox --remote-debugging-port 0'\n");
    const text = await readFile(entry, "utf8");
    expect(text).toContain("Exec=firefox --remote-debugging-port 0 %u");
    expect(text).toContain("Name=Firefox (WebBrain companion)");
    const removed = await runMain(["companion", "uninstall"], { env: { HOME: home, XDG_DATA_HOME: "" } });
    expect(removed.stdout).toContain(`removed ${entry}\n`);
    await expect(stat(entry)).rejects.toThrow(/ENOENT/);
  });

  it("an unknown action is a usage error", async () => {
    const run = await runMain(["companion", "start"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Unknown companion action "start"');
  });
});

describe("the installed host, run as Firefox runs it", () => {
  it("answers hello outside Firefox with why there is no BiDi, and exits when stdin ends", async () => {
    const dir = await tempDir();
    expect((await runMain(["companion", "install", "--dir", dir])).code).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, `${COMPANION_HOST_NAME}.json`), "utf8")) as {
      path: string;
    };
    const env = { ...process.env };
    delete env.WEBBRAIN_COMPANION_SESSION;
    const host = startHost(manifest.path, env);
    host.send({ id: 7, type: "hello" });
    const answer = await host.next();
    expect(answer).toMatchObject({ id: 7, ok: true });
    const hello = (answer as { result: CompanionHello }).result;
    expect(hello.bidi).toBe(false);
    // This test's process is the parent, and it holds no Firefox profile.
    expect(hello.reason).toMatch(/shows no Firefox profile/);
    host.send({ id: 8, type: "page_action", marker: "m", tabId: 1, action: "click", params: {} });
    expect(await host.next()).toMatchObject({
      id: 8,
      ok: false,
      error: expect.stringMatching(/no Firefox profile/),
    });
    host.end();
    expect(await host.exited).toBe(0);
  });
});
