/**
 * The add-on's size limit for one download (settings: "Largest file the agent may download",
 * default 100 MB). Firefox itself downloads the file (`browser.downloads`), so the limit is held
 * by watching it: the declared size and the bytes received are read until the download ends,
 * and one past the limit is cancelled, its partial file removed and the entry erased, so no half
 * file is ever listed as a download.
 *
 * Polled, not evented: `downloads.onChanged` reports no progress (`bytesReceived`), only state.
 */
import { DEFAULT_MAX_DOWNLOAD_MB } from "../shared/settings.js";

export { DEFAULT_MAX_DOWNLOAD_MB };

const BYTES_PER_MB = 1024 * 1024;
/** How often a download in progress is looked at. */
const POLL_MS = 100;
/** A download still running after this long is reported as in progress (the agent may list it later). */
const WATCH_TIMEOUT_MS = 120_000;

/** The part of `browser.downloads` the watch uses (a seam: tests and the port pass it). */
export interface DownloadsArea {
  search(query: { id: number }): Promise<browser.downloads.DownloadItem[]>;
  cancel(id: number): Promise<void>;
  removeFile(id: number): Promise<void>;
  erase(query: { id: number }): Promise<number[]>;
}

export class DownloadTooLargeError extends Error {
  override readonly name = "DownloadTooLargeError";
  constructor(url: string, limitBytes: number, seenBytes: number) {
    const limitMb = Math.round((limitBytes / BYTES_PER_MB) * 100) / 100;
    super(
      `The download of ${url} passed ${Math.floor(seenBytes / BYTES_PER_MB)} MB, over the ${limitMb} MB limit for one file; it was stopped and nothing was kept. ` +
        'Ask the user to raise "Largest file the agent may download" in the WebBrain settings if the file is needed.',
    );
  }
}

export function megabytesToBytes(mb: number): number {
  return mb * BYTES_PER_MB;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits until download `id` ends (complete, interrupted) or passes `limitBytes`; answers the
 * item as it ended, or the last seen one when it outlasts the watch. Past the limit it cancels,
 * removes and erases the download and throws DownloadTooLargeError.
 */
export async function watchDownloadSize(
  downloads: DownloadsArea,
  id: number,
  url: string,
  limitBytes: number,
  signal?: AbortSignal,
): Promise<browser.downloads.DownloadItem | undefined> {
  const deadline = performance.now() + WATCH_TIMEOUT_MS;
  for (;;) {
    const [item] = await downloads.search({ id });
    if (!item) return undefined;
    const seen = Math.max(item.bytesReceived ?? 0, item.totalBytes ?? 0, item.fileSize ?? 0);
    if (seen > limitBytes) {
      await downloads.cancel(id).catch(() => undefined);
      // A finished file is on disk; a cancelled one's partial file is removed by Firefox.
      await downloads.removeFile(id).catch(() => undefined);
      await downloads.erase({ id }).catch(() => undefined);
      throw new DownloadTooLargeError(url, limitBytes, seen);
    }
    if (item.state !== "in_progress" || performance.now() > deadline) return item;
    signal?.throwIfAborted();
    await pause(POLL_MS);
  }
}
