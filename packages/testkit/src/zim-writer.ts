/**
 * A tiny, test-only openZIM writer: Debian's zim-tools (libzim 8+) write zstd clusters only, yet
 * older Kiwix archives carry xz clusters, so tests that read the xz path need an archive this
 * writer makes. It puts every blob into ONE cluster compressed by the `xz` command (xz-utils,
 * part of every Debian install), so the reader under test meets a real xz stream.
 *
 * Layout (openzim.org/wiki/ZIM_file_format, version 6.1): header (80 bytes) | MIME type list |
 * URL pointer list | title pointer list | directory entries | cluster pointer list | cluster |
 * MD5 of everything before it (at checksumPos).
 *
 * Invariants: entries are sorted by namespace+URL (the URL pointer list order), the title
 * pointer list by namespace+title, and a redirect names its target by URL.
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";

export interface ZimWriterContent {
  namespace: string;
  url: string;
  title?: string;
  mimeType: string;
  body: string | Uint8Array;
}

export interface ZimWriterRedirect {
  namespace: string;
  url: string;
  title?: string;
  /** The target's URL, in the same namespace. */
  redirectTo: string;
}

export type ZimWriterEntry = ZimWriterContent | ZimWriterRedirect;

const MAGIC = 0x044d495a;
const HEADER_BYTES = 80;
const CLUSTER_XZ = 4;
const NO_LAYOUT_PAGE = 0xffffffff;

function isRedirect(entry: ZimWriterEntry): entry is ZimWriterRedirect {
  return "redirectTo" in entry;
}

function cString(text: string): Buffer {
  return Buffer.concat([Buffer.from(text, "utf8"), Buffer.from([0])]);
}

/** xz-compresses with the CLI (CRC32 check: what xz decoders for the web all support). */
export function xzCompress(data: Uint8Array): Buffer {
  return execFileSync("xz", ["--format=xz", "--check=crc32", "-6", "-c"], { input: data });
}

/** The bytes of a ZIM archive holding `entries` in one xz cluster; `mainUrl` names the main page. */
export function writeXzZim(entries: readonly ZimWriterEntry[], mainUrl?: string): Buffer {
  const sorted = [...entries].sort((a, b) => (`${a.namespace}${a.url}` < `${b.namespace}${b.url}` ? -1 : 1));
  const indexOf = new Map(sorted.map((entry, index) => [`${entry.namespace}${entry.url}`, index]));
  const mimeTypes = [...new Set(sorted.flatMap((entry) => (isRedirect(entry) ? [] : [entry.mimeType])))];

  // The one cluster: blob offsets (u32, n+1 of them, from the cluster data's start), then blobs.
  const blobs: Buffer[] = [];
  const blobOf = new Map<number, number>();
  sorted.forEach((entry, index) => {
    if (isRedirect(entry)) return;
    blobOf.set(index, blobs.length);
    blobs.push(Buffer.from(entry.body));
  });
  const offsets = Buffer.alloc(4 * (blobs.length + 1));
  let at = offsets.length;
  blobs.forEach((blob, i) => {
    offsets.writeUInt32LE(at, 4 * i);
    at += blob.length;
  });
  offsets.writeUInt32LE(at, 4 * blobs.length);
  const cluster = Buffer.concat([Buffer.from([CLUSTER_XZ]), xzCompress(Buffer.concat([offsets, ...blobs]))]);

  const dirents = sorted.map((entry, index) => {
    const fixed = Buffer.alloc(isRedirect(entry) ? 12 : 16);
    fixed.writeUInt8(0, 2); // no extra parameters
    fixed.write(entry.namespace, 3, "latin1");
    fixed.writeUInt32LE(0, 4); // revision
    if (isRedirect(entry)) {
      const target = indexOf.get(`${entry.namespace}${entry.redirectTo}`);
      if (target === undefined)
        throw new Error(`redirect ${entry.url} -> ${entry.redirectTo}: no such entry`);
      fixed.writeUInt16LE(0xffff, 0);
      fixed.writeUInt32LE(target, 8);
    } else {
      fixed.writeUInt16LE(mimeTypes.indexOf(entry.mimeType), 0);
      fixed.writeUInt32LE(0, 8); // cluster 0
      fixed.writeUInt32LE(blobOf.get(index) ?? 0, 12);
    }
    return Buffer.concat([fixed, cString(entry.url), cString(entry.title ?? "")]);
  });

  const mimeList = Buffer.concat([...mimeTypes.map(cString), Buffer.from([0])]);
  const mimeListPos = HEADER_BYTES;
  const urlPtrPos = mimeListPos + mimeList.length;
  const titlePtrPos = urlPtrPos + 8 * sorted.length;
  const direntsPos = titlePtrPos + 4 * sorted.length;
  const urlPointers = Buffer.alloc(8 * sorted.length);
  let direntAt = direntsPos;
  dirents.forEach((dirent, i) => {
    urlPointers.writeBigUInt64LE(BigInt(direntAt), 8 * i);
    direntAt += dirent.length;
  });
  const titleKey = (entry: ZimWriterEntry) => `${entry.namespace}${entry.title || entry.url}`;
  const byTitle = sorted
    .map((_, i) => i)
    .sort((a, b) => (titleKey(sorted[a]!) < titleKey(sorted[b]!) ? -1 : 1));
  const titlePointers = Buffer.alloc(4 * sorted.length);
  for (const [i, index] of byTitle.entries()) titlePointers.writeUInt32LE(index, 4 * i);
  const clusterPtrPos = direntAt;
  const clusterPos = clusterPtrPos + 8;
  const clusterPointers = Buffer.alloc(8);
  clusterPointers.writeBigUInt64LE(BigInt(clusterPos));
  const checksumPos = clusterPos + cluster.length;

  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt16LE(6, 4);
  header.writeUInt16LE(1, 6);
  randomBytes(16).copy(header, 8);
  header.writeUInt32LE(sorted.length, 24);
  header.writeUInt32LE(1, 28);
  header.writeBigUInt64LE(BigInt(urlPtrPos), 32);
  header.writeBigUInt64LE(BigInt(titlePtrPos), 40);
  header.writeBigUInt64LE(BigInt(clusterPtrPos), 48);
  header.writeBigUInt64LE(BigInt(mimeListPos), 56);
  const main = mainUrl === undefined ? undefined : indexOf.get(`C${mainUrl}`);
  header.writeUInt32LE(main ?? NO_LAYOUT_PAGE, 64);
  header.writeUInt32LE(NO_LAYOUT_PAGE, 68);
  header.writeBigUInt64LE(BigInt(checksumPos), 72);

  const body = Buffer.concat([
    header,
    mimeList,
    urlPointers,
    titlePointers,
    ...dirents,
    clusterPointers,
    cluster,
  ]);
  return Buffer.concat([body, createHash("md5").update(body).digest()]);
}
