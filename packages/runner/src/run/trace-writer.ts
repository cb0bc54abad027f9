/**
 * `--trace FILE`: a run as trace records (the versioned JSON-lines format of
 * @webbrain/agent's trace-format.ts, the same the add-on stores and exports), one line per
 * record, written as the run goes.
 *
 * Invariants:
 * - Lines go to FILE.part while the run goes on and FILE appears only by rename once the run
 *   ended (however it ended), so a FILE that exists is complete; a run killed hard leaves only
 *   the .part file, clearly unfinished.
 * - Both are readable by the user alone (0600): a trace holds what the pages showed.
 * - No typed secret is in FILE: when the recorder learned a secret after lines that held it were
 *   written (a task that named it), FILE is written again whole from the scrubbed records.
 */
import { createWriteStream, fchmodSync, openSync, type WriteStream } from "node:fs";
import { readFile, rename } from "node:fs/promises";
import {
  parseTrace,
  serializeTrace,
  TraceFormatError,
  type TraceRecord,
  TraceRecorder,
  type TraceStart,
} from "@webbrain/agent";
import { UsageError } from "../errors.js";
import { PRIVATE_FILE_MODE, writePrivateFile } from "./private-file.js";

export class TraceWriter {
  readonly path: string;
  readonly #partPath: string;
  readonly #stream: WriteStream;
  #recorder: TraceRecorder | undefined;

  constructor(path: string) {
    this.path = path;
    this.#partPath = `${path}.part`;
    let fd: number;
    try {
      fd = openSync(this.#partPath, "w", PRIVATE_FILE_MODE);
      // A .part file left by an older run keeps its mode on open: narrow it.
      fchmodSync(fd, PRIVATE_FILE_MODE);
    } catch (error) {
      throw new UsageError(`--trace ${path}: cannot write there (${(error as Error).message}).`);
    }
    this.#stream = createWriteStream("", { fd });
  }

  /** Starts the run's recorder; every record it makes is written as one line at once. */
  start(start: TraceStart): TraceRecorder {
    this.#recorder = new TraceRecorder(start, (record) => this.write(record));
    return this.#recorder;
  }

  write(record: TraceRecord): void {
    this.#stream.write(`${JSON.stringify(record)}\n`);
  }

  /** Ends the trace (a run that died gets a run_end saying how), flushes, renames into place. */
  async finish(failure?: string): Promise<void> {
    if (failure !== undefined) this.#recorder?.fail(failure);
    await new Promise<void>((resolve, reject) => {
      this.#stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
    if (this.#recorder?.rescrubbed)
      await writePrivateFile(this.#partPath, serializeTrace(this.#recorder.records));
    await rename(this.#partPath, this.path);
  }
}

/** Reads a trace file; a missing or malformed file is a UsageError that says what to do. */
export async function readTraceFile(path: string): Promise<TraceRecord[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const hint = path.endsWith(".part") ? "" : " (a run that was killed leaves only FILE.part)";
    throw new UsageError(`Cannot read the trace ${path}: ${(error as Error).message}${hint}.`);
  }
  try {
    return parseTrace(text);
  } catch (error) {
    if (error instanceof TraceFormatError) throw new UsageError(`${path}: ${error.message}`);
    throw error;
  }
}
