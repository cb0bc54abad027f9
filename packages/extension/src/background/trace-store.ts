/**
 * TraceStore: recorded runs in IndexedDB (the add-on's `unlimitedStorage`), bounded by a size
 * the user sets; when a new trace would pass it, the oldest traces are dropped first. The
 * background page writes, the traces page reads, exports, imports and deletes (same origin,
 * same database). Each trace is kept as its records (trace-format.ts) with its summary beside
 * it, so the list never parses every run.
 */
import { summarizeTrace, type TraceRecord, type TraceSummary } from "@webbrain/agent";

const DB_NAME = "webbrain-traces";
const DB_VERSION = 1;
const TRACES = "traces";

/** Default bound on stored traces, in bytes of JSON. */
export const DEFAULT_TRACE_STORAGE_BYTES = 50 * 1024 * 1024;
/** Where the traces page keeps its settings (the recorder reads them at each run start). */
export const TRACE_SETTINGS_KEY = "traceSettings";

export interface TraceSettings {
  /** Record every run (opt-in). */
  enabled: boolean;
  maxBytes: number;
  /**
   * A screenshot per step, each at most this many bytes (opt-in: 0 = none). The traces page
   * plays them as a filmstrip; they cost storage (about 20-30 KB a step at 1280x720).
   */
  shotMaxBytes: number;
}

/** The bounds of the per-step screenshot size the settings accept, in KB. */
export const STEP_SHOT_KB = { min: 8, max: 512 } as const;

export function traceSettingsFrom(value: unknown): TraceSettings {
  const record = (value ?? {}) as { enabled?: unknown; maxBytes?: unknown; shotKb?: unknown };
  const maxBytes =
    typeof record.maxBytes === "number" && record.maxBytes > 0
      ? record.maxBytes
      : DEFAULT_TRACE_STORAGE_BYTES;
  return { enabled: record.enabled === true, maxBytes, shotMaxBytes: stepShotBytes(record.shotKb) };
}

/** The stored `shotKb` as bytes: 0 (none) unless a number, then held within STEP_SHOT_KB. */
function stepShotBytes(shotKb: unknown): number {
  if (typeof shotKb !== "number" || !Number.isFinite(shotKb) || shotKb <= 0) return 0;
  return Math.round(Math.min(STEP_SHOT_KB.max, Math.max(STEP_SHOT_KB.min, shotKb)) * 1024);
}

export interface StoredTrace {
  runId: string;
  summary: TraceSummary;
  records: TraceRecord[];
  bytes: number;
  savedAt: number;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error("IndexedDB request failed"));
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error("IndexedDB transaction failed"));
    tx.onabort = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
  });
}

export class TraceStore {
  private db: Promise<IDBDatabase> | undefined;

  constructor(private readonly factory: IDBFactory = indexedDB) {}

  private open(): Promise<IDBDatabase> {
    this.db ??= new Promise((resolve, reject) => {
      const req = this.factory.open(DB_NAME, DB_VERSION);
      req.onupgradeneeded = () => {
        const store = req.result.createObjectStore(TRACES, { keyPath: "runId" });
        store.createIndex("savedAt", "savedAt");
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error ?? new Error("cannot open the trace database"));
    });
    return this.db;
  }

  /** Saves a trace, then drops the oldest others until the total fits `maxBytes`. */
  async put(records: TraceRecord[], maxBytes: number, savedAt = Date.now()): Promise<StoredTrace> {
    const summary = summarizeTrace(records);
    const bytes = records.reduce((sum, record) => sum + JSON.stringify(record).length + 1, 0);
    const trace: StoredTrace = { runId: summary.runId, summary, records, bytes, savedAt };
    const db = await this.open();
    const tx = db.transaction(TRACES, "readwrite");
    const store = tx.objectStore(TRACES);
    store.put(trace);
    const all = (await request(store.index("savedAt").getAll())) as StoredTrace[];
    let total = all.reduce((sum, t) => sum + t.bytes, 0);
    for (const old of all) {
      if (total <= maxBytes) break;
      if (old.runId === trace.runId) continue;
      store.delete(old.runId);
      total -= old.bytes;
    }
    await done(tx);
    return trace;
  }

  /** Summaries, newest first. */
  async list(): Promise<(TraceSummary & { bytes: number })[]> {
    const db = await this.open();
    const all = (await request(
      db.transaction(TRACES).objectStore(TRACES).index("savedAt").getAll(),
    )) as StoredTrace[];
    return all.reverse().map((t) => ({ ...t.summary, bytes: t.bytes }));
  }

  async get(runId: string): Promise<StoredTrace | undefined> {
    const db = await this.open();
    return (await request(db.transaction(TRACES).objectStore(TRACES).get(runId))) as StoredTrace | undefined;
  }

  async delete(runId: string): Promise<void> {
    const db = await this.open();
    const tx = db.transaction(TRACES, "readwrite");
    tx.objectStore(TRACES).delete(runId);
    await done(tx);
  }
}
