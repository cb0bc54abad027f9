/**
 * Verifies a downloaded ZIM archive before it is installed: every ZIM file ends with the MD5 of
 * all bytes before it (header field `checksumPos`), and the user may also give a SHA-256 (the
 * one Kiwix publishes next to each download). Hashes run over the file as a stream, so a
 * multi-gigabyte archive is never held in memory.
 */
import { md5 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

export class ArchiveVerifyError extends Error {
  override name = "ArchiveVerifyError";
}

const HEADER_BYTES = 80;
const MD5_BYTES = 16;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A SHA-256 as the user typed it (hex, any case, surrounding space), or undefined when empty. */
export function normalizeSha256(text: string): string | undefined {
  const hex = text.trim().toLowerCase();
  if (hex === "") return undefined;
  if (!SHA256_HEX.test(hex)) {
    throw new ArchiveVerifyError(
      "The SHA-256 must be 64 hexadecimal characters (as Kiwix lists it next to the download); leave it empty to check the archive's own MD5 only.",
    );
  }
  return hex;
}

async function checksumPosition(file: Blob): Promise<number> {
  if (file.size < HEADER_BYTES + MD5_BYTES) {
    throw new ArchiveVerifyError("The downloaded file is too small to be a ZIM archive: check the URL.");
  }
  const header = new DataView(await file.slice(0, HEADER_BYTES).arrayBuffer());
  if (header.getUint32(0, true) !== 0x044d495a) {
    throw new ArchiveVerifyError(
      "The downloaded file is not a ZIM archive (wrong magic number): check that the URL points at a .zim file.",
    );
  }
  const position = Number(header.getBigUint64(72, true));
  if (position + MD5_BYTES !== file.size) {
    throw new ArchiveVerifyError(
      `The downloaded file is incomplete or damaged: its header says ${position + MD5_BYTES} bytes, it has ${file.size}. Remove it and download it again.`,
    );
  }
  return position;
}

/** Throws ArchiveVerifyError, saying what to do, unless the archive's MD5 (and `expectedSha256`) match. */
export async function verifyArchive(file: Blob, expectedSha256?: string): Promise<void> {
  const position = await checksumPosition(file);
  const md5Hash = md5.create();
  const shaHash = expectedSha256 ? sha256.create() : undefined;
  let at = 0;
  const reader = file.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const covered = Math.max(0, Math.min(value.length, position - at));
    if (covered > 0) md5Hash.update(covered === value.length ? value : value.subarray(0, covered));
    shaHash?.update(value);
    at += value.length;
  }
  const stored = bytesToHex(new Uint8Array(await file.slice(position, position + MD5_BYTES).arrayBuffer()));
  if (bytesToHex(md5Hash.digest()) !== stored) {
    throw new ArchiveVerifyError(
      "The downloaded archive is corrupt: its MD5 checksum does not match the one stored in the file. It was not installed; download it again (from a mirror if it happens twice).",
    );
  }
  if (shaHash && bytesToHex(shaHash.digest()) !== expectedSha256) {
    throw new ArchiveVerifyError(
      "The downloaded archive does not match the SHA-256 you gave: it was not installed. Check the checksum (and the URL) and download it again.",
    );
  }
}
