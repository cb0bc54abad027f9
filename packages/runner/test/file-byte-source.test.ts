/**
 * The Node file source that `--zim FILE` reads through: exact ranges, short at the end of the
 * file, empty past it, bad ranges refused, and no source for a file that is not a regular file.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openFileByteSource } from "../src/run/file-byte-source.js";

let dir = "";
let file = "";
/** 0, 1, 2, ... 255, 0, 1, ...: every byte says where it is. */
const BYTES = Uint8Array.from({ length: 100_000 }, (_, i) => i % 256);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "webbrain-byte-source-"));
  file = join(dir, "data.bin");
  await writeFile(file, BYTES);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("openFileByteSource", () => {
  it("reads exactly the range asked for, anywhere in the file", async () => {
    const source = await openFileByteSource(file);
    try {
      expect(source.size).toBe(BYTES.length);
      expect(await source.read(0, 4)).toEqual(BYTES.slice(0, 4));
      expect(await source.read(70_001, 3_000)).toEqual(BYTES.slice(70_001, 73_001));
      expect(await source.read(5, 0)).toEqual(new Uint8Array(0));
    } finally {
      await source.close();
    }
  });

  it("stops at the end of the file: a range across it is short, one past it is empty", async () => {
    const source = await openFileByteSource(file);
    try {
      const tail = await source.read(BYTES.length - 10, 64);
      expect(tail).toEqual(BYTES.slice(BYTES.length - 10));
      expect(await source.read(BYTES.length, 16)).toEqual(new Uint8Array(0));
      expect(await source.read(BYTES.length + 1_000, 16)).toEqual(new Uint8Array(0));
    } finally {
      await source.close();
    }
  });

  it("refuses a negative or fractional offset or length", async () => {
    const source = await openFileByteSource(file);
    try {
      await expect(source.read(-1, 4)).rejects.toThrow(RangeError);
      await expect(source.read(0, -4)).rejects.toThrow(RangeError);
      await expect(source.read(1.5, 4)).rejects.toThrow(RangeError);
    } finally {
      await source.close();
    }
  });

  it("gives no source for a missing file or a folder", async () => {
    await expect(openFileByteSource(join(dir, "missing.zim"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(openFileByteSource(dir)).rejects.toMatchObject({ code: "EISDIR" });
  });
});
