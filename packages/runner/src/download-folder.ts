/**
 * Downloads for the runner: files fetched into one folder owned by the run, listed and read
 * back by id (list_downloads, read_downloaded_file, upload_file with a downloadId).
 *
 * Invariants:
 * - A file appears in the list only once it is completely written (written to a temp name,
 *   then renamed), so a half-written file is never presented as whole.
 * - File names come from the caller or the URL, stripped of path separators, and never
 *   overwrite each other (a numeric suffix is added).
 */
import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import type { DownloadContent, DownloadInfo } from "@webbrain/agent";
import type { FetchImpl } from "./http-fetch.js";

export const DEFAULT_READ_MAX_CHARS = 50_000;
const DOWNLOAD_TIMEOUT_MS = 120_000;

export class DownloadError extends Error {
  override readonly name = "DownloadError";
}

interface Entry {
  info: DownloadInfo;
  path: string;
}

export class DownloadFolder {
  readonly dir: string;
  readonly #fetch: FetchImpl;
  readonly #entries: Entry[] = [];

  constructor(dir: string, fetchImpl: FetchImpl = fetch) {
    this.dir = dir;
    this.#fetch = fetchImpl;
  }

  async download(url: string, filename?: string): Promise<DownloadInfo> {
    const response = await this.#fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) }).catch(
      (error) => {
        throw new DownloadError(`Could not download ${url}: ${(error as Error).message}`);
      },
    );
    if (!response.ok)
      throw new DownloadError(`Could not download ${url}: HTTP ${response.status} ${response.statusText}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const name = this.#uniqueName(safeName(filename || basename(new URL(url).pathname) || "download"));
    const path = join(this.dir, name);
    const temp = join(this.dir, `.${randomUUID()}.part`);
    await writeFile(temp, bytes);
    await rename(temp, path);
    const mime = response.headers.get("content-type") ?? undefined;
    const info: DownloadInfo = {
      id: String(this.#entries.length + 1),
      url,
      filename: name,
      ...(mime ? { mime } : {}),
      bytes: bytes.length,
      state: "complete",
      startTime: new Date().toISOString(),
    };
    this.#entries.push({ info, path });
    return info;
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
