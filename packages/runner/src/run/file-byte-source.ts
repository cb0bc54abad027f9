/**
 * A file read by byte range through one open handle, for readers that must never hold the whole
 * file (`--zim FILE`: a Wikipedia archive is tens of gigabytes). `@webbrain/agent`'s
 * `ZimByteSource` is the shape; this is the runner's Node side of it.
 *
 * Invariants:
 * - A read returns exactly the bytes of [offset, offset + length) that the file has: fewer only
 *   where the file ends first, none at or past its end. Short reads of the OS are read again.
 * - A negative or fractional offset or length is a RangeError, never a read somewhere else.
 */
import { type FileHandle, open } from "node:fs/promises";

export interface FileByteSource {
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

function checkRange(offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(
      `A file range needs a whole offset and length of 0 or more (got ${offset}, ${length}).`,
    );
  }
}

async function readFully(handle: FileHandle, offset: number, length: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(bytes, filled, length - filled, offset + filled);
    // The file shrank under us: what was read is what there is.
    if (bytesRead === 0) return bytes.subarray(0, filled);
    filled += bytesRead;
  }
  return bytes;
}

/** Opens `path` for ranged reads; the caller closes it. Errors are Node's (ENOENT, EACCES, ...). */
export async function openFileByteSource(path: string): Promise<FileByteSource> {
  const handle = await open(path, "r");
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw Object.assign(new Error(`${path} is not a regular file`), {
        code: stat.isDirectory() ? "EISDIR" : "ENOTFILE",
      });
    }
    const size = stat.size;
    return {
      size,
      async read(offset, length) {
        checkRange(offset, length);
        if (offset >= size) return new Uint8Array(0);
        return readFully(handle, offset, Math.min(length, size - offset));
      },
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
