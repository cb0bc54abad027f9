/**
 * `--trace FILE`: every agent event of a run as one JSON line with a timestamp.
 *
 * Invariant: lines go to FILE.part while the run goes on and FILE appears only by rename once
 * the run ended (however it ended), so a FILE that exists is complete; a run killed hard
 * leaves only the .part file, clearly unfinished.
 */
import { createWriteStream, openSync, type WriteStream } from "node:fs";
import { rename } from "node:fs/promises";
import { UsageError } from "./errors.js";

export class TraceWriter {
  readonly path: string;
  readonly #partPath: string;
  readonly #stream: WriteStream;

  constructor(path: string) {
    this.path = path;
    this.#partPath = `${path}.part`;
    let fd: number;
    try {
      fd = openSync(this.#partPath, "w");
    } catch (error) {
      throw new UsageError(`--trace ${path}: cannot write there (${(error as Error).message}).`);
    }
    this.#stream = createWriteStream("", { fd });
  }

  write(record: Record<string, unknown>): void {
    this.#stream.write(`${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`);
  }

  /** Flushes and renames the trace into place. */
  async finish(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
    await rename(this.#partPath, this.path);
  }
}
