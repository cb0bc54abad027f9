/**
 * Downloads for the runner: files fetched into one folder owned by the run, listed and read
 * back by id (list_downloads, read_downloaded_file, upload_file with a downloadId).
 *
 * Invariants:
 * - A file appears in the list only once it is completely written (written to a temp name,
 *   then renamed), so a half-written file is never presented as whole.
 * - File names come from the caller or the URL, stripped of path separators, and never
 *   overwrite each other (a numeric suffix is added).
 * - A download is streamed to disk, never held whole in memory, and stops at the size limit
 *   (`--max-download-mb`, DEFAULT_MAX_DOWNLOAD_BYTES): a bigger file is cancelled, its partial
 *   file removed, and a DownloadTooLargeError names the flag that raises the limit.
 */
import { randomUUID } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import type { DownloadContent, DownloadInfo } from "@webbrain/agent";
import type { FetchImpl } from "../tools/http-fetch.js";

export const DEFAULT_READ_MAX_CHARS = 50_000;
const DOWNLOAD_TIMEOUT_MS = 120_000;
const BYTES_PER_MB = 1024 * 1024;
/** The size limit of one download unless the user raises it (`--max-download-mb`). */
export const DEFAULT_MAX_DOWNLOAD_MB = 100;
export const DEFAULT_MAX_DOWNLOAD_BYTES = DEFAULT_MAX_DOWNLOAD_MB * BYTES_PER_MB;

export class DownloadError extends Error {
  override readonly name: string = "DownloadError";
}

/** The file is bigger than the run's download limit; nothing of it was kept. */
export class DownloadTooLargeError extends DownloadError {
  override readonly name = "DownloadTooLargeError";
  readonly limitBytes: number;
  constructor(url: string, limitBytes: number, declaredBytes?: number) {
    const limitMb = Math.round((limitBytes / BYTES_PER_MB) * 100) / 100;
    const size =
      declaredBytes !== undefined ? `is ${Math.ceil(declaredBytes / BYTES_PER_MB)} MB` : "passed the limit";
    super(
      `The download of ${url} ${size}, over the ${limitMb} MB limit for one file; it was stopped and nothing was kept. ` +
        "Ask the user to raise the limit (webbrain --max-download-mb N) if the file is needed.",
    );
    this.limitBytes = limitBytes;
  }
}

interface Entry {
  info: DownloadInfo;
  path: string;
}

export class DownloadFolder {
  readonly dir: string;
  readonly #fetch: FetchImpl;
  readonly #maxBytes: number;
  readonly #entries: Entry[] = [];

  constructor(dir: string, fetchImpl: FetchImpl = fetch, maxBytes = DEFAULT_MAX_DOWNLOAD_BYTES) {
    this.dir = dir;
    this.#fetch = fetchImpl;
    this.#maxBytes = maxBytes;
  }

  async download(url: string, filename?: string, signal?: AbortSignal): Promise<DownloadInfo> {
    const timeout = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
    const response = await this.#fetch(url, {
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    }).catch((error) => {
      throw new DownloadError(`Could not download ${url}: ${(error as Error).message}`);
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new DownloadError(`Could not download ${url}: HTTP ${response.status} ${response.statusText}`);
    }
    // A declared size over the limit is refused before a byte is read.
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared) && declared > this.#maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new DownloadTooLargeError(url, this.#maxBytes, declared);
    }
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temp = join(this.dir, `.${randomUUID()}.part`);
    const bytes = await this.#streamTo(temp, url, response.body);
    const name = this.#uniqueName(safeName(filename || basename(new URL(url).pathname) || "download"));
    const path = join(this.dir, name);
    await rename(temp, path);
    const mime = response.headers.get("content-type") ?? undefined;
    const info: DownloadInfo = {
      id: String(this.#entries.length + 1),
      url,
      filename: name,
      ...(mime ? { mime } : {}),
      bytes,
      state: "complete",
      startTime: new Date().toISOString(),
    };
    this.#entries.push({ info, path });
    return info;
  }

  /** Writes the body to `temp` chunk by chunk; past the limit (or on any failure) `temp` is removed. */
  async #streamTo(temp: string, url: string, body: Response["body"]): Promise<number> {
    const file = await open(temp, "wx", 0o600);
    let bytes = 0;
    try {
      const reader = body?.getReader();
      for (;;) {
        if (!reader) break;
        const { done, value } = await reader.read().catch((error: unknown) => {
          throw new DownloadError(`Could not download ${url}: ${(error as Error).message}`);
        });
        if (done) break;
        bytes += value.length;
        if (bytes > this.#maxBytes) {
          // Cancelling stops the transfer: the rest of the file is never received.
          await reader.cancel().catch(() => undefined);
          throw new DownloadTooLargeError(url, this.#maxBytes);
        }
        await file.write(value);
      }
      await file.close();
      return bytes;
    } catch (error) {
      await file.close().catch(() => undefined);
      await rm(temp, { force: true });
      throw error;
    }
  }

  list(limit = 20): DownloadInfo[] {
    return this.#entries.slice(-limit).map((entry) => entry.info);
  }

  /** Local path of a finished download; throws DownloadError for an unknown id. */
  pathOf(id: string): string {
    return this.#entry(id).path;
  }

  async read(id: string, maxChars = DEFAULT_READ_MAX_CHARS): Promise<DownloadContent> {
    const entry = this.#entry(id);
    const bytes = await readFile(entry.path);
    const text = looksLikeText(bytes, entry.info.mime);
    const content = text ? bytes.toString("utf8") : bytes.toString("base64");
    return {
      id,
      filename: entry.info.filename,
      ...(entry.info.mime ? { mime: entry.info.mime } : {}),
      content: content.slice(0, maxChars),
      encoding: text ? "utf8" : "base64",
      truncated: content.length > maxChars,
    };
  }

  #entry(id: string): Entry {
    const entry = this.#entries.find((e) => e.info.id === id);
    if (!entry) {
      const known = this.#entries.map((e) => e.info.id).join(", ") || "none yet";
      throw new DownloadError(`No download with id "${id}" (known: ${known}); call list_downloads.`);
    }
    return entry;
  }

  #uniqueName(name: string): string {
    const taken = new Set(this.#entries.map((e) => e.info.filename));
    if (!taken.has(name)) return name;
    const ext = extname(name);
    const stem = name.slice(0, name.length - ext.length);
    for (let i = 2; ; i++) {
      const candidate = `${stem} (${i})${ext}`;
      if (!taken.has(candidate)) return candidate;
    }
  }
}

function safeName(name: string): string {
  const cleaned = name.replace(/[/\\\0]/g, "_").replace(/^\.+/, "");
  return cleaned || "download";
}

function looksLikeText(bytes: Buffer, mime: string | undefined): boolean {
  if (mime && /^text\/|json|xml|javascript|csv/i.test(mime)) return true;
  return !bytes.subarray(0, 1024).includes(0);
}
