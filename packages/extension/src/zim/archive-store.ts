/**
 * Offline archives the user installed (opt-in): their durable state in IndexedDB
 * (`webbrain-offline` / `archives`), their bytes in the origin private file system (OPFS), so
 * a multi-gigabyte archive never sits in extension storage. The settings page installs; the
 * background page reads (both are the add-on's origin, so they share IndexedDB and OPFS).
 *
 * Invariants:
 * - Nothing is fetched or written unless the user picks an archive: enabling the Wikipedia
 *   skill installs nothing.
 * - An archive is recorded only after its bytes are stored and it opened as a ZIM, so a failed
 *   or non-ZIM install leaves no record (and its partial file is deleted).
 */
import {
  type ArchiveMetadata,
  readArchiveMetadata,
  type ZimByteSource,
  ZimReader,
} from "@webbrain/agent/offline-wikipedia";

/** An installed archive: its metadata (title, language, date, source, license) and where it is. */
export interface ArchiveRecord extends ArchiveMetadata {
  id: string;
  fileName: string;
  size: number;
  installedAt: number;
}

const DB_NAME = "webbrain-offline";
const DB_VERSION = 2;
const STORE = "archives";
/** Unfinished downloads (archive-download.ts), keyed by the archive id they will become. */
export const DOWNLOADS_STORE = "downloads";

function database(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, DB_VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE, { keyPath: "id" });
      if (!db.objectStoreNames.contains(DOWNLOADS_STORE))
        db.createObjectStore(DOWNLOADS_STORE, { keyPath: "id" });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("IndexedDB did not open"));
  });
}

export async function transact<T>(
  mode: IDBTransactionMode,
  work: (store: IDBObjectStore) => IDBRequest<T>,
  storeName = STORE,
): Promise<T> {
  const db = await database();
  try {
    return await new Promise<T>((resolve, reject) => {
      const request = work(db.transaction(storeName, mode).objectStore(storeName));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error("IndexedDB request failed"));
    });
  } finally {
    db.close();
  }
}

function fileSource(file: Blob): ZimByteSource {
  return {
    size: file.size,
    read: async (offset, length) => new Uint8Array(await file.slice(offset, offset + length).arrayBuffer()),
  };
}

export function opfsName(id: string): string {
  return `zim-${id}.zim`;
}

export async function listArchives(): Promise<ArchiveRecord[]> {
  return transact("readonly", (store) => store.getAll() as IDBRequest<ArchiveRecord[]>);
}

export function newArchiveId(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** Install a user-picked .zim: copy into OPFS, check it opens, record it. */
export async function installArchive(file: File): Promise<ArchiveRecord> {
  const id = newArchiveId();
  const root = await navigator.storage.getDirectory();
  const handle = await root.getFileHandle(opfsName(id), { create: true });
  try {
    await file.stream().pipeTo(await handle.createWritable());
  } catch (error) {
    await root.removeEntry(opfsName(id)).catch(() => undefined);
    throw error;
  }
  return recordStoredArchive(id, file.name);
}

/**
 * Records the archive whose bytes are already in OPFS under `id` once it opens as a ZIM; on any
 * failure the bytes are deleted, so there is never a file without a record.
 */
export async function recordStoredArchive(id: string, fileName: string): Promise<ArchiveRecord> {
  const root = await navigator.storage.getDirectory();
  try {
    const stored = await (await root.getFileHandle(opfsName(id))).getFile();
    const zim = await ZimReader.open(fileSource(stored));
    const record: ArchiveRecord = {
      id,
      fileName,
      size: stored.size,
      ...(await readArchiveMetadata(zim, fileName)),
      installedAt: Date.now(),
    };
    await transact("readwrite", (store) => store.put(record));
    return record;
  } catch (error) {
    await root.removeEntry(opfsName(id)).catch(() => undefined);
    throw error;
  }
}

export async function removeArchive(id: string): Promise<void> {
  await transact("readwrite", (store) => store.delete(id));
  const root = await navigator.storage.getDirectory();
  await root.removeEntry(opfsName(id)).catch(() => undefined);
}

export async function openArchive(record: ArchiveRecord): Promise<ZimReader> {
  const root = await navigator.storage.getDirectory();
  const file = await (await root.getFileHandle(opfsName(record.id))).getFile();
  return ZimReader.open(fileSource(file));
}
