import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_SPOOL_BYTES } from "../src/batch/budgets.js";
import { nodeSpoolFs, SpoolError, type SpoolFs, SpoolStore } from "../src/batch/spool.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "batch-spool-test-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("SpoolStore", () => {
  it("defaults to a 32 MiB quota and creates its folder only when first used", async () => {
    const store = new SpoolStore({ fs: nodeSpoolFs, prefix: join(root, "s-") });
    expect(store.quotaBytes).toBe(MAX_SPOOL_BYTES);
    expect(await store.directory()).toBeUndefined();
    expect(store.hasDirectory).toBe(false);
    expect(await readdir(root)).toEqual([]);
    const ref = await store.write("frame-1.json", '{"a":"é"}', "note");
    expect(store.hasDirectory).toBe(true);
    expect(ref).toEqual({ path: join((await store.directory())!, "frame-1.json"), bytes: 10, note: "note" });
    expect(await readFile(ref.path, "utf8")).toBe('{"a":"é"}');
    await store.dispose();
    expect(await readdir(root)).toEqual([]);
    await expect(store.write("late.json", "{}", "n")).rejects.toThrow(SpoolError);
  });

  it("counts the quota across writes and refuses what would pass it", async () => {
    const store = new SpoolStore({ fs: nodeSpoolFs, prefix: join(root, "q-"), quotaBytes: 100 });
    await store.write("a.json", "x".repeat(60), "n");
    await expect(store.write("b.json", "y".repeat(41), "n")).rejects.toThrow(
      /spool quota \(100 bytes\) has only 40 bytes left/,
    );
    await store.write("c.json", "z".repeat(40), "n");
    expect(store.usedBytes).toBe(100);
    await store.dispose();
  });

  it("never leaves a partial file under the final name when a write fails", async () => {
    const written: string[] = [];
    const fs: SpoolFs = {
      ...nodeSpoolFs,
      writeFile: async (path, text) => {
        written.push(path);
        await nodeSpoolFs.writeFile(path, text.slice(0, 3));
        throw new Error("ENOSPC: no space left on device");
      },
    };
    const store = new SpoolStore({ fs, prefix: join(root, "f-") });
    await expect(store.write("big.json", "0123456789", "n")).rejects.toThrow(
      /Could not write the spool file .*ENOSPC/,
    );
    expect(written[0]).toMatch(/big\.json\.partial$/);
    expect(await readdir((await store.directory())!)).toEqual([]);
    expect(store.usedBytes).toBe(0);
    await store.dispose();
  });

  it("turns a folder that cannot be created into a SpoolError and tries again next time", async () => {
    let attempts = 0;
    const fs: SpoolFs = {
      ...nodeSpoolFs,
      mkdtemp: async (prefix) => {
        attempts += 1;
        if (attempts === 1) throw new Error("EACCES");
        return nodeSpoolFs.mkdtemp(prefix);
      },
    };
    const store = new SpoolStore({ fs, prefix: join(root, "m-") });
    await expect(store.write("a.json", "{}", "n")).rejects.toThrow(
      /Could not create the spool folder: EACCES/,
    );
    expect(store.hasDirectory).toBe(false);
    await expect(store.write("a.json", "{}", "n")).resolves.toMatchObject({ bytes: 2 });
    await store.dispose();
  });

  it("keeps file names safe", async () => {
    const store = new SpoolStore({ fs: nodeSpoolFs, prefix: join(root, "n-") });
    const ref = await store.write("../../etc/passwd", "{}", "n");
    expect(ref.path.startsWith((await store.directory())!)).toBe(true);
    expect(ref.path).not.toContain("/../");
    await store.dispose();
  });
});
