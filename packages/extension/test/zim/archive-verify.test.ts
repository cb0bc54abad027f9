/**
 * Verification of a downloaded ZIM before install: the MD5 every ZIM stores at `checksumPos`,
 * and the SHA-256 the user may give. Runs on Node's Blob, the same API as the OPFS File.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeXzZim } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import { ArchiveVerifyError, normalizeSha256, verifyArchive } from "../../src/zim/archive-verify.js";

const ZIM = join(dirname(fileURLToPath(import.meta.url)), "../../../testkit/fixtures/zim/test-wikipedia.zim");

describe("verifyArchive", () => {
  it("accepts an archive whose MD5 and SHA-256 match (zim-tools' and the test writer's)", async () => {
    const bytes = await readFile(ZIM);
    await verifyArchive(new Blob([new Uint8Array(bytes)]), createHash("sha256").update(bytes).digest("hex"));
    const xz = writeXzZim([
      { namespace: "C", url: "A", title: "A", mimeType: "text/html", body: "<p>a</p>" },
    ]);
    await verifyArchive(new Blob([new Uint8Array(xz)]));
  });

  it("refuses a flipped byte, a wrong SHA-256 and a truncated file, each saying what to do", async () => {
    const bytes = new Uint8Array(await readFile(ZIM));
    const flipped = bytes.slice();
    flipped[1_000] = (flipped[1_000] ?? 0) ^ 1;
    await expect(verifyArchive(new Blob([flipped]))).rejects.toThrow(
      /MD5 checksum does not match.*download it again/,
    );
    await expect(verifyArchive(new Blob([bytes]), "0".repeat(64))).rejects.toThrow(
      /does not match the SHA-256 you gave/,
    );
    await expect(verifyArchive(new Blob([bytes.subarray(0, bytes.length - 100)]))).rejects.toThrow(
      /incomplete or damaged.*download it again/,
    );
    await expect(verifyArchive(new Blob([new Uint8Array(200)]))).rejects.toThrow(ArchiveVerifyError);
  });

  it("reads a SHA-256 as the user pastes it and refuses one that is not 64 hex digits", () => {
    expect(normalizeSha256(`  ABCDEF${"0".repeat(58)} `)).toBe(`abcdef${"0".repeat(58)}`);
    expect(normalizeSha256("")).toBeUndefined();
    expect(() => normalizeSha256("1234")).toThrow(/64 hexadecimal characters/);
  });
});
