/**
 * A reader for openZIM archives (Kiwix), browser-free: it reads bytes through `ZimByteSource`
 * (an OPFS file or a user-picked File in the add-on, a file handle in the runner's `--zim`)
 * and never loads the whole archive. It finds entries by title (binary search of the title
 * pointer list) and reads an article's blob out of its cluster. Clusters are decompressed by
 * maintained libraries: zstd by `fzstd`, xz by `xz-decompress`.
 *
 * Format facts (openzim.org/wiki/ZIM_file_format): an 80-byte little-endian header; a MIME type
 * list; a URL pointer list (u64 per entry, sorted by namespace+URL); a title pointer list (u32
 * entry index per entry, sorted by namespace+title); directory entries (redirects point to an
 * entry index); clusters whose first byte says the compression (1 none, 4 xz, 5 zstd) and
 * whether offsets are 64-bit (0x10), then blob offsets and blobs.
 */
import { decompress as zstdDecompress } from "fzstd";
import * as xzModule from "xz-decompress";

// xz-decompress is CommonJS (a webpack bundle) whose exports Node cannot detect statically: Node
// gives them under `default`, bundlers (the add-on's esbuild, vitest) at the top level too.
const { XzReadableStream } = (xzModule as { default?: typeof xzModule }).default ?? xzModule;

export interface ZimByteSource {
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

export class ZimFormatError extends Error {
  override name = "ZimFormatError";
}

export interface ZimHeader {
  majorVersion: number;
  minorVersion: number;
  entryCount: number;
  clusterCount: number;
  urlPtrPos: number;
  titlePtrPos: number;
  clusterPtrPos: number;
  mimeListPos: number;
  mainPage: number;
  checksumPos: number;
}

export interface ZimEntry {
  index: number;
  namespace: string;
  url: string;
  title: string;
  mimeType: string | undefined;
  redirectIndex?: number;
  cluster?: number;
  blob?: number;
}

const MAGIC = 0x044d495a;
const HEADER_BYTES = 80;
/** A directory entry is small: fixed fields plus two short strings. */
const DIRENT_READ_BYTES = 1_024;
const MAX_ARTICLE_BYTES = 8 * 1024 * 1024;
const decoder = new TextDecoder();

function u64(view: DataView, at: number): number {
  return Number(view.getBigUint64(at, true));
}

function cString(bytes: Uint8Array, start: number): { text: string; end: number } {
  let end = start;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return { text: decoder.decode(bytes.subarray(start, end)), end: end + 1 };
}

async function xzDecompress(data: Uint8Array): Promise<Uint8Array> {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(data);
      controller.close();
    },
  });
  const buffer = await new Response(new XzReadableStream(input)).arrayBuffer();
  return new Uint8Array(buffer);
}

export class ZimReader {
  private mimeTypes: string[] = [];
  private clusterCache = new Map<number, { data: Uint8Array; wide: boolean }>();

  private constructor(
    private readonly source: ZimByteSource,
    readonly header: ZimHeader,
  ) {}

  static async open(source: ZimByteSource): Promise<ZimReader> {
    if (source.size < HEADER_BYTES) throw new ZimFormatError("The file is too small to be a ZIM archive.");
    const bytes = await source.read(0, HEADER_BYTES);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(0, true) !== MAGIC) {
      throw new ZimFormatError(
        "This is not a ZIM archive (wrong magic number): pick a .zim file from Kiwix.",
      );
    }
    const header: ZimHeader = {
      majorVersion: view.getUint16(4, true),
      minorVersion: view.getUint16(6, true),
      entryCount: view.getUint32(24, true),
      clusterCount: view.getUint32(28, true),
      urlPtrPos: u64(view, 32),
      titlePtrPos: u64(view, 40),
      clusterPtrPos: u64(view, 48),
      mimeListPos: u64(view, 56),
      mainPage: view.getUint32(64, true),
      checksumPos: u64(view, 72),
    };
    if (header.majorVersion !== 5 && header.majorVersion !== 6) {
      throw new ZimFormatError(`ZIM version ${header.majorVersion} is not supported (5 and 6 are).`);
    }
    const reader = new ZimReader(source, header);
    await reader.readMimeTypes();
    return reader;
  }

  private async readMimeTypes(): Promise<void> {
    const length = Math.min(4_096, this.header.urlPtrPos - this.header.mimeListPos);
    const bytes = await this.source.read(this.header.mimeListPos, length);
    let at = 0;
    for (;;) {
      const { text, end } = cString(bytes, at);
      if (text === "") break;
      this.mimeTypes.push(text);
      at = end;
    }
  }

  async entryAt(index: number): Promise<ZimEntry> {
    if (index < 0 || index >= this.header.entryCount)
      throw new ZimFormatError(`No entry ${index} in this archive.`);
    const pointer = await this.source.read(this.header.urlPtrPos + index * 8, 8);
    const offset = u64(new DataView(pointer.buffer, pointer.byteOffset, 8), 0);
    const bytes = await this.source.read(offset, Math.min(DIRENT_READ_BYTES, this.source.size - offset));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const mime = view.getUint16(0, true);
    const extraLength = view.getUint8(2);
    const namespace = String.fromCharCode(view.getUint8(3));
    let at: number;
    const entry: Partial<ZimEntry> = { index, namespace };
    if (mime === 0xffff) {
      entry.redirectIndex = view.getUint32(8, true);
      entry.mimeType = undefined;
      at = 12;
    } else {
      entry.mimeType = this.mimeTypes[mime];
      entry.cluster = view.getUint32(8, true);
      entry.blob = view.getUint32(12, true);
      at = 16;
    }
    const url = cString(bytes, at);
    const title = cString(bytes, url.end);
    void extraLength;
    return { ...(entry as ZimEntry), url: url.text, title: title.text || url.text };
  }

  /** The entry index at title-sorted position `position`. */
  private async titleIndex(position: number): Promise<number> {
    const bytes = await this.source.read(this.header.titlePtrPos + position * 4, 4);
    return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  }

  /** Find a content entry by title: exact first, then ignoring case and `_` vs space. */
  async findByTitle(title: string): Promise<ZimEntry | undefined> {
    const wanted = title.trim();
    // Content is namespace "C" in new archives and "A" in old ones.
    for (const namespace of ["C", "A"]) {
      const key = `${namespace}${wanted}`;
      let low = 0;
      let high = this.header.entryCount - 1;
      while (low <= high) {
        const middle = (low + high) >> 1;
        const entry = await this.entryAt(await this.titleIndex(middle));
        const current = `${entry.namespace}${entry.title}`;
        if (current === key) return entry;
        if (current < key) low = middle + 1;
        else high = middle - 1;
      }
    }
    const loose = (text: string) => text.replace(/_/g, " ").toLowerCase();
    for (let i = 0; i < this.header.entryCount; i++) {
      const entry = await this.entryAt(i);
      if ((entry.namespace === "C" || entry.namespace === "A") && loose(entry.title) === loose(wanted))
        return entry;
    }
    return undefined;
  }

  /** The entry's bytes, following redirects. */
  async content(entry: ZimEntry): Promise<{ entry: ZimEntry; bytes: Uint8Array }> {
    let current = entry;
    for (let hops = 0; current.redirectIndex !== undefined; hops++) {
      if (hops > 8) throw new ZimFormatError(`Too many redirects from ${entry.url}.`);
      current = await this.entryAt(current.redirectIndex);
    }
    if (current.cluster === undefined || current.blob === undefined) {
      throw new ZimFormatError(`Entry ${current.url} has no content.`);
    }
    const cluster = await this.cluster(current.cluster);
    const width = cluster.wide ? 8 : 4;
    const view = new DataView(cluster.data.buffer, cluster.data.byteOffset, cluster.data.byteLength);
    const read = (at: number) => (cluster.wide ? u64(view, at) : view.getUint32(at, true));
    const start = read(current.blob * width);
    const end = read((current.blob + 1) * width);
    return { entry: current, bytes: cluster.data.subarray(start, end) };
  }

  async metadata(name: string): Promise<string | undefined> {
    // Metadata lives in namespace "M", found by URL (URL-sorted list).
    let low = 0;
    let high = this.header.entryCount - 1;
    const key = `M${name}`;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const entry = await this.entryAt(middle);
      const current = `${entry.namespace}${entry.url}`;
      if (current === key) return decoder.decode((await this.content(entry)).bytes);
      if (current < key) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  private async cluster(index: number): Promise<{ data: Uint8Array; wide: boolean }> {
    const cached = this.clusterCache.get(index);
    if (cached) return cached;
    const pointers = await this.source.read(this.header.clusterPtrPos + index * 8, 16);
    const view = new DataView(pointers.buffer, pointers.byteOffset, pointers.byteLength);
    const start = u64(view, 0);
    const end = index + 1 < this.header.clusterCount ? u64(view, 8) : this.header.checksumPos;
    if (end - start > MAX_ARTICLE_BYTES * 4) {
      throw new ZimFormatError(`Cluster ${index} is larger than this reader handles.`);
    }
    const raw = await this.source.read(start, end - start);
    const info = raw[0] ?? 0;
    const compression = info & 0x0f;
    const wide = (info & 0x10) !== 0;
    const body = raw.subarray(1);
    let data: Uint8Array;
    if (compression === 0 || compression === 1) data = body;
    else if (compression === 5) data = zstdDecompress(body);
    else if (compression === 4) data = await xzDecompress(body);
    else
      throw new ZimFormatError(
        `Cluster compression ${compression} is not supported (none, xz and zstd are).`,
      );
    const result = { data, wide };
    // A few clusters stay cached: an article read usually needs one, metadata another.
    if (this.clusterCache.size >= 4) this.clusterCache.clear();
    this.clusterCache.set(index, result);
    return result;
  }
}

/** Visible text of an article's HTML: scripts and styles dropped, tags stripped, entities decoded. */
export function articleText(html: string): string {
  const entities: Record<string, string> = {
    amp: "&",
    lt: "<",
    gt: ">",
    quot: '"',
    apos: "'",
    nbsp: " ",
    ndash: "–",
    mdash: "—",
  };
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<\/(p|h[1-6]|li|div|tr)>/gi, "\n")
    .replace(/<[^>]+>/g, " ")
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith("#x")) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
      if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
      return entities[name.toLowerCase()] ?? whole;
    })
    .replace(/[ \t]+/g, " ")
    .replace(/\s*\n\s*/g, "\n")
    .trim();
}
