/**
 * The sweep of what killed companions leave: a socket file and a downloads folder per companion,
 * each named by its pid. The dead one is a real process killed with SIGKILL while listening (what
 * happens when Firefox's process group is killed); the live ones must survive the sweep, as must
 * anything that only looks like ours.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AttachSocketServer } from "../src/companion/attach-socket.js";
import {
  ATTACH_SOCKETS,
  DOWNLOAD_FOLDERS,
  sweepDeadCompanionLeftovers,
} from "../src/companion/dead-companion-leftovers.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "webbrain-leftovers-test-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A process that listens at `<dir>/companion-<its pid>.sock`, as a companion does. */
async function companionLike(dir: string): Promise<ChildProcess & { pid: number }> {
  const script = `
    const { createServer } = require("node:net");
    createServer().listen(require("node:path").join(process.argv[1], "companion-" + process.pid + ".sock"), () => console.log("up"));
  `;
  const child = spawn(process.execPath, ["-e", script, dir], { stdio: ["ignore", "pipe", "inherit"] });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the listening child exited (${code})`)));
  });
  return child as ChildProcess & { pid: number };
}

async function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

async function listen(path: string): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, () => resolve()));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return server;
}

describe("the sweep of killed companions' sockets", () => {
  it("removes the socket of a companion killed with SIGKILL, and keeps the live one's and look-alikes", async () => {
    const dir = await tempDir();
    const dead = await companionLike(dir);
    const live = await companionLike(dir);
    await killed(dead);
    const deadSocket = `companion-${dead.pid}.sock`;
    expect(await readdir(dir)).toContain(deadSocket);
    // Ours by name, but a plain file: not what a companion makes, so not ours to remove.
    const plain = `companion-${dead.pid + 100000}.sock`;
    await writeFile(join(dir, plain), "");
    // Our own pid's socket: this process is alive, whatever the name says.
    const own = `companion-${process.pid}.sock`;
    await listen(join(dir, own));

    const removed = await sweepDeadCompanionLeftovers(dir, ATTACH_SOCKETS);

    expect(removed).toEqual([join(dir, deadSocket)]);
    expect((await readdir(dir)).sort()).toEqual([`companion-${live.pid}.sock`, own, plain].sort());
  });

  it("runs when a companion starts listening: a new companion's folder holds no dead socket", async () => {
    const dir = join(await tempDir(), "webbrain");
    await mkdir(dir, { mode: 0o700 });
    const dead = await companionLike(dir);
    await killed(dead);
    const server = await AttachSocketServer.listen(dir, () => undefined);
    cleanups.push(() => server.stop());
    expect(await readdir(dir)).toEqual([`companion-${process.pid}.sock`]);
  });
});

describe("the sweep of killed companions' downloads folders", () => {
  it("removes a dead companion's folder with its files, keeps a live one's, links, and folders named otherwise", async () => {
    const parent = await tempDir();
    const dead = await companionLike(await tempDir());
    await killed(dead);
    const live = await companionLike(await tempDir());
    const uuid = "0b6a1c2e-9f0d-4d55-8a51-1d1e5b7c3f20";
    const deadFolder = join(parent, `webbrain-companion-${dead.pid}-${uuid}`);
    await mkdir(join(deadFolder, "given", uuid), { recursive: true });
    await writeFile(join(deadFolder, "given", uuid, "report.pdf"), "%PDF-1.4");
    const liveFolder = join(parent, `webbrain-companion-${live.pid}-${uuid}`);
    await mkdir(liveFolder);
    // A link named like a dead companion's folder, pointing at something to keep.
    const kept = join(parent, "keep-me");
    await mkdir(kept);
    await writeFile(join(kept, "precious.txt"), "mine");
    await symlink(kept, join(parent, `webbrain-companion-${dead.pid}-ffffffff-0000-4000-8000-000000000000`));
    // Folders of an older build (no pid in the name) cannot be judged: they stay.
    await mkdir(join(parent, `webbrain-companion-${uuid}`));

    const removed = await sweepDeadCompanionLeftovers(parent, DOWNLOAD_FOLDERS);

    expect(removed).toEqual([deadFolder]);
    expect(existsSync(deadFolder)).toBe(false);
    expect(existsSync(liveFolder)).toBe(true);
    expect(existsSync(join(kept, "precious.txt"))).toBe(true);
    expect(existsSync(join(parent, `webbrain-companion-${uuid}`))).toBe(true);
  });

  it("answers an empty list for a folder it cannot read", async () => {
    expect(
      await sweepDeadCompanionLeftovers(join(tmpdir(), "webbrain-no-such-folder"), ATTACH_SOCKETS),
    ).toEqual([]);
  });
});
