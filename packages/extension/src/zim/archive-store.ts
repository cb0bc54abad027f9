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
import { type ZimByteSource, ZimReader } from "./zim-reader.js";

export interface ArchiveRecord {
  id: string;
  fileName: string;
  size: number;
  title: string;
  /** ISO 639-3, as the archive's metadata says (e.g. "eng"). */
  language: string;
  /** The archive's date (YYYY-MM-DD). */
  date: string;
  /** The site it copies (e.g. https://en.wikipedia.org/). */
  source: string;
  license: string;
  installedAt: number;
}

const DB_NAME = "webbrain-offline";
const STORE = "archives";
const DEFAULT_LICENSE = "CC BY-SA 4.0 (Wikipedia text); see the archive's metadata";

function database(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: "id" });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("IndexedDB did not open"));
  });
}

async function transact<T>(
  mode: IDBTransactionMode,
  work: (store: IDBObjectStore) => IDBRequest<T>,
): Promise<T> {
  const db = await database();
  try {
    return await new Promise<T>((resolve, reject) => {
      const request = work(db.transaction(STORE, mode).objectStore(STORE));
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

function opfsName(id: string): string {
  return `zim-${id}.zim`;
}

export async function listArchives(): Promise<ArchiveRecord[]> {
  return transact("readonly", (store) => store.getAll() as IDBRequest<ArchiveRecord[]>);
}

/** Install a user-picked .zim: copy into OPFS, check it opens, record it. */
export async function installArchive(file: File): Promise<ArchiveRecord> {
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const root = await navigator.storage.getDirectory();
  const handle = await root.getFileHandle(opfsName(id), { create: true });
  try {
    const writable = await handle.createWritable();
    await file.stream().pipeTo(writable);
    const stored = await handle.getFile();
    const zim = await ZimReader.open(fileSource(stored));
    const record: ArchiveRecord = {
      id,
      fileName: file.name,
      size: stored.size,
      title: (await zim.metadata("Title")) ?? file.name,
      language: (await zim.metadata("Language")) ?? "",
      date: (await zim.metadata("Date")) ?? "",
      source: (await zim.metadata("Source")) ?? "",
      license: (await zim.metadata("License")) ?? DEFAULT_LICENSE,
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
