/**
 * Spooling of results too large to hand to the model inline.
 *
 * Invariants:
 * - a spool file is complete when `write` returns its reference: the text goes
 *   to a `.partial` name first and is renamed into place only after the write
 *   finished, so no reader ever sees a half-written file under the final name;
 * - a failed write leaves no file behind and rejects with `SpoolError`, so the
 *   caller reports a frame error instead of a reference to a broken file;
 * - the bytes written over the store's life never exceed its quota
 *   (MAX_SPOOL_BYTES by default); one store lives for a whole Pi session, across
 *   browser relaunches;
 * - the folder is created on first use and removed, with every file in it, by `dispose`.
 * File system access goes through `SpoolFs` so tests can make writes fail.
 */

import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MAX_SPOOL_BYTES, utf8Bytes } from "./budgets.js";
import type { SpoolReference } from "./types.js";

export interface SpoolFs {
  mkdtemp(prefix: string): Promise<string>;
  writeFile(path: string, text: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string, options: { recursive: boolean; force: boolean }): Promise<void>;
}

export class SpoolError extends Error {
  override readonly name = "SpoolError";
}

export interface SpoolStoreOptions {
  fs: SpoolFs;
  /** Folder prefix, e.g. `join(tmpdir(), "pi-firefox-bidi-spool-")`. */
  prefix: string;
  quotaBytes?: number;
}

export class SpoolStore {
  readonly #fs: SpoolFs;
  readonly #prefix: string;
  readonly #quotaBytes: number;
  #dir: Promise<string> | undefined;
  #usedBytes = 0;
  #reservedBytes = 0;
  #disposed = false;

  constructor(options: SpoolStoreOptions) {
    this.#fs = options.fs;
    this.#prefix = options.prefix;
    this.#quotaBytes = options.quotaBytes ?? MAX_SPOOL_BYTES;
  }

  get usedBytes(): number {
    return this.#usedBytes;
  }

  get quotaBytes(): number {
    return this.#quotaBytes;
  }

  /** True once a folder was created or is being created; until then `directory()` is undefined. */
  get hasDirectory(): boolean {
    return this.#dir !== undefined;
  }

  /** The folder, once something was spooled; undefined before. */
  async directory(): Promise<string | undefined> {
    return this.#dir ? await this.#dir.catch(() => undefined) : undefined;
  }

  /**
   * Writes `text` to a new file named after `name` (a safe file name) and
   * returns where it lies. Rejects with SpoolError when the quota would be
   * exceeded or the write failed.
   */
  async write(name: string, text: string, note: string): Promise<SpoolReference> {
    if (this.#disposed) throw new SpoolError("The spool was removed because the Pi session ended.");
    const bytes = utf8Bytes(text);
    const left = this.#quotaBytes - this.#usedBytes - this.#reservedBytes;
    if (bytes > left) {
      throw new SpoolError(
        `Result of ${bytes} bytes was too large to return inline and the session's spool quota (${this.#quotaBytes} bytes) has only ${Math.max(left, 0)} bytes left; ask for a smaller result (e.g. a clip or a viewport screenshot) or start a new Pi session.`,
      );
    }
    this.#reservedBytes += bytes;
    try {
      let dir: string;
      try {
        dir = await this.#ensureDir();
      } catch (cause) {
        throw new SpoolError(`Could not create the spool folder: ${describe(cause)}`);
      }
      const finalPath = join(dir, safeFileName(name));
      const partialPath = `${finalPath}.partial`;
      try {
        await this.#fs.writeFile(partialPath, text);
        await this.#fs.rename(partialPath, finalPath);
      } catch (cause) {
        await this.#fs.rm(partialPath, { recursive: false, force: true }).catch(() => undefined);
        throw new SpoolError(`Could not write the spool file ${finalPath}: ${describe(cause)}`);
      }
      this.#usedBytes += bytes;
      return { path: finalPath, bytes, note };
    } finally {
      this.#reservedBytes -= bytes;
    }
  }

  /** Removes the folder and everything in it; later writes fail. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const dir = await this.directory();
    if (dir) await this.#fs.rm(dir, { recursive: true, force: true });
  }

  #ensureDir(): Promise<string> {
    if (!this.#dir) {
      this.#dir = this.#fs.mkdtemp(this.#prefix);
      // A failed mkdtemp is retried on the next write rather than cached forever.
      this.#dir.catch(() => {
        this.#dir = undefined;
      });
    }
    return this.#dir;
  }
}

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120);
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/** The real file system, for production use. */
export const nodeSpoolFs: SpoolFs = {
  mkdtemp: (prefix) => mkdtemp(prefix),
  writeFile: (path, text) => writeFile(path, text, "utf8"),
  rename: (from, to) => rename(from, to),
  rm: (path, options) => rm(path, options),
};
