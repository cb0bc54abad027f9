/**
 * A resumable, verified download of a .zim archive from a URL the user gives (Settings ->
 * Offline Wikipedia). The bytes go into OPFS under the id the archive will have; the progress
 * state lives in IndexedDB (`downloads`), so a download cut by a dropped connection resumes by
 * itself with an HTTP Range request, and one cut by a closed page or browser resumes from where
 * its committed bytes end when the user presses Resume.
 *
 * Invariants:
 * - Nothing downloads unless the user asks for this URL: enabling the Wikipedia skill fetches
 *   nothing.
 * - The file in OPFS is the truth about progress: a resume starts at its size, so bytes
 *   committed before a crash are never fetched twice and never skipped.
 * - An archive is installed only after its MD5 (stored at the end of every ZIM) and the
 *   user's SHA-256, if given, match; a corrupt download is deleted and says so.
 * - A resumed response must start where the file ends (206 with a matching Content-Range);
 *   a server that answers 200 restarts the file from zero rather than appending.
 */
import {
  type ArchiveRecord,
  DOWNLOADS_STORE,
  newArchiveId,
  opfsName,
  recordStoredArchive,
  transact,
} from "./archive-store.js";
import { normalizeSha256, verifyArchive } from "./archive-verify.js";

export interface DownloadState {
  id: string;
  url: string;
  fileName: string;
  sha256?: string;
  /** Bytes committed to the OPFS file. */
  received: number;
  /** The archive's size once the server said it. */
  total?: number;
  /** ETag or Last-Modified of the first response: a resume asks for the same file (If-Range). */
  validator?: string;
  status: "downloading" | "interrupted" | "verifying";
  error?: string;
  startedAt: number;
}

export interface DownloadProgress {
  state: DownloadState;
  /** How many times the connection dropped and the download resumed by itself. */
  resumes: number;
}

export class ArchiveDownloadError extends Error {
  override name = "ArchiveDownloadError";
  constructor(
    message: string,
    /** Worth retrying at once (connection dropped, 5xx) rather than a mistake to fix. */
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/** Dropped connections resumed without asking, per Start or Resume press. */
const MAX_AUTOMATIC_RESUMES = 5;
const RESUME_BACKOFF_MS = 500;
/** Bytes written before the OPFS file is committed and the state saved (progress survives a crash). */
const COMMIT_EVERY_BYTES = 4 * 1024 * 1024;

export function listDownloads(): Promise<DownloadState[]> {
  return transact("readonly", (store) => store.getAll() as IDBRequest<DownloadState[]>, DOWNLOADS_STORE);
}

function saveState(state: DownloadState): Promise<unknown> {
  return transact("readwrite", (store) => store.put(state), DOWNLOADS_STORE);
}

function deleteState(id: string): Promise<unknown> {
  return transact("readwrite", (store) => store.delete(id), DOWNLOADS_STORE);
}

async function fileHandle(id: string): Promise<FileSystemFileHandle> {
  const root = await navigator.storage.getDirectory();
  return root.getFileHandle(opfsName(id), { create: true });
}

/** Checks the user's input and records a new download (nothing fetched yet). */
export async function createDownload(urlText: string, sha256Text: string): Promise<DownloadState> {
  let url: URL;
  try {
    url = new URL(urlText.trim());
  } catch {
    throw new ArchiveDownloadError("Enter the full URL of a .zim file (https://…).", false);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ArchiveDownloadError("Only http(s) URLs can be downloaded.", false);
  }
  const sha256 = normalizeSha256(sha256Text);
  const state: DownloadState = {
    id: newArchiveId(),
    url: url.href,
    fileName: decodeURIComponent(url.pathname.split("/").pop() || "archive.zim"),
    ...(sha256 ? { sha256 } : {}),
    received: 0,
    status: "downloading",
    startedAt: Date.now(),
  };
  await saveState(state);
  return state;
}

/** Removes an unfinished download: its state and its partial bytes. */
export async function cancelDownload(id: string): Promise<void> {
  await deleteState(id);
  const root = await navigator.storage.getDirectory();
  await root.removeEntry(opfsName(id)).catch(() => undefined);
}

/**
 * Runs (or resumes) the download to the end, verifies and installs it. Dropped connections
 * resume by themselves a few times; after that the state stays `interrupted` for the user's
 * Resume. A corrupt archive is deleted with its state and the error says so.
 */
export async function runDownload(
  initial: DownloadState,
  onProgress: (progress: DownloadProgress) => void,
): Promise<ArchiveRecord> {
  const state: DownloadState = { ...initial, status: "downloading" };
  delete state.error;
  let resumes = 0;
  for (;;) {
    try {
      await fetchRest(state, () => onProgress({ state, resumes }));
      break;
    } catch (error) {
      const failure =
        error instanceof ArchiveDownloadError
          ? error
          : new ArchiveDownloadError(`The connection failed: ${(error as Error).message}`, true);
      state.status = "interrupted";
      state.error = failure.message;
      await saveState(state);
      onProgress({ state, resumes });
      if (!failure.transient || resumes >= MAX_AUTOMATIC_RESUMES) throw failure;
      resumes++;
      await new Promise((resolve) => setTimeout(resolve, RESUME_BACKOFF_MS * resumes));
      state.status = "downloading";
    }
  }
  state.status = "verifying";
  delete state.error;
  await saveState(state);
  onProgress({ state, resumes });
  try {
    await verifyArchive(await (await fileHandle(state.id)).getFile(), state.sha256);
    const record = await recordStoredArchive(state.id, state.fileName);
    await deleteState(state.id);
    return record;
  } catch (error) {
    await cancelDownload(state.id);
    throw error;
  }
}

/** Content-Range "bytes START-END/TOTAL" -> start and total. */
function contentRange(header: string | null): { start: number; total?: number } | undefined {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(header?.trim() ?? "");
  if (!match) return undefined;
  return { start: Number(match[1]), ...(match[2] !== "*" ? { total: Number(match[2]) } : {}) };
}

/** One request: from the file's committed end to the archive's end, appended to the file. */
async function fetchRest(state: DownloadState, progress: () => void): Promise<void> {
  const handle = await fileHandle(state.id);
  state.received = (await handle.getFile()).size;
  if (state.total !== undefined && state.received === state.total) return;
  const headers: Record<string, string> = {};
  if (state.received > 0) {
    headers.range = `bytes=${state.received}-`;
    if (state.validator) headers["if-range"] = state.validator;
  }
  const response = await fetch(state.url, { headers, credentials: "omit", cache: "no-store" });
  if (response.status === 206) {
    const range = contentRange(response.headers.get("content-range"));
    if (!range || range.start !== state.received) {
      throw new ArchiveDownloadError(
        `The server resumed at the wrong place (${response.headers.get("content-range") ?? "no Content-Range"}); cancel and download again.`,
        false,
      );
    }
    if (range.total !== undefined) state.total = range.total;
  } else if (response.status === 200) {
    // A fresh copy (the server ignores ranges, or the file changed): start the file over.
    state.received = 0;
    const length = Number(response.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(length)) state.total = length;
  } else {
    throw new ArchiveDownloadError(
      `The server answered HTTP ${response.status} ${response.statusText} for ${state.url}.`,
      response.status >= 500 || response.status === 408 || response.status === 429,
    );
  }
  state.validator = response.headers.get("etag") ?? response.headers.get("last-modified") ?? undefined;
  if (!response.body) throw new ArchiveDownloadError("The server sent no body.", true);

  const open = async () => {
    const writable = await handle.createWritable({ keepExistingData: true });
    if (state.received === 0) await writable.truncate(0);
    await writable.seek(state.received);
    return writable;
  };
  let writable = await open();
  let uncommitted = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await writable.write(value);
      state.received += value.length;
      uncommitted += value.length;
      if (uncommitted >= COMMIT_EVERY_BYTES) {
        await writable.close();
        await saveState(state);
        progress();
        writable = await open();
        uncommitted = 0;
      }
    }
  } finally {
    // close() commits what was written, also after a dropped connection: the resume starts there.
    await writable.close();
    await saveState(state);
    progress();
  }
  if (state.total !== undefined && state.received < state.total) {
    throw new ArchiveDownloadError(
      `The connection ended after ${state.received} of ${state.total} bytes.`,
      true,
    );
  }
}
