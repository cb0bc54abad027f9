/**
 * RunJournal: the durable record of one tab's detached run, so a sidebar that closes and
 * reopens mid-run rebuilds it without lost or duplicated text.
 *
 * Invariants:
 * - Sequence numbers strictly increase by one per appended event; a snapshot's `seq` is the
 *   last one given out, so "events with seq > snapshot.seq" is exactly what a reader lacks.
 * - The replay window holds at most MAX_REPLAY_EVENTS entries; consecutive text deltas share one
 *   entry so a long reply does not push tool calls out of the window.
 * - The streamed text of the current step is kept separately (at most MAX_STREAM_TEXT_CHARS,
 *   the front trimmed and counted), so in-progress Markdown can be rebuilt after its deltas left
 *   the window.
 * - Persistence: deltas are coalesced on a trailing DELTA_FLUSH_MS timer; every other event
 *   (terminal ones, and `tool_start`, the pre-tool checkpoint) is written at once and cancels a
 *   pending delta write. Writes are serialized, so a newer snapshot is never overwritten by an
 *   older one.
 * - Pure: storage and time come in through `JournalSink` and `Clock`, so it is tested in Node
 *   with a fake clock.
 */

import type { Mode } from "@webbrain/protocol";
import type { JournalEntry, RunEvent, RunSnapshot } from "../shared/run-events.js";

export const MAX_REPLAY_EVENTS = 256;
export const MAX_STREAM_TEXT_CHARS = 100_000;
export const DELTA_FLUSH_MS = 200;
/** A merged delta entry grows to at most this much text; past it a new entry starts. */
const MAX_DELTA_ENTRY_CHARS = 4_000;

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Where snapshots go: `browser.storage.session` in the add-on, an array in tests. */
export interface JournalSink {
  write(key: string, snapshot: RunSnapshot): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

export function runUiKey(tabId: string): string {
  return `runUi:${tabId}`;
}

export class RunJournal {
  private readonly snapshot: RunSnapshot;
  private flushTimer: unknown = undefined;
  private writeChain: Promise<void> = Promise.resolve();
  private lastWriteError: unknown = undefined;

  constructor(
    tabId: string,
    runId: string,
    mode: Mode,
    private readonly sink: JournalSink,
    private readonly clock: Clock = systemClock,
  ) {
    this.snapshot = {
      tabId,
      runId,
      mode,
      status: "running",
      seq: 0,
      startedAt: clock.now(),
      events: [],
      streamText: "",
      streamTextDropped: 0,
      openTools: [],
    };
  }

  /** Record an event; returns its entry (with its sequence number) for live delivery. */
  append(event: RunEvent): JournalEntry {
    if (this.snapshot.status !== "running") {
      throw new Error(`run ${this.snapshot.runId} already ended (${this.snapshot.status}); start a new run`);
    }
    const entry: JournalEntry = { seq: this.snapshot.seq + 1, at: this.clock.now(), event };
    this.snapshot.seq = entry.seq;
    this.applyToState(event);
    this.pushToWindow(entry);
    if (event.kind === "text_delta") {
      this.scheduleDeltaFlush();
    } else {
      void this.flushNow();
    }
    return entry;
  }

  /** A deep copy of the current state, as a reader would get it from storage. */
  current(): RunSnapshot {
    return structuredClone(this.snapshot);
  }

  /**
   * Entries after `seq`, or undefined when the window no longer reaches back that far (or a
   * merged delta entry straddles `seq`): the reader must then resync from `current()`.
   */
  eventsAfter(seq: number): JournalEntry[] | undefined {
    if (seq >= this.snapshot.seq) return [];
    const newer = this.snapshot.events.filter((entry) => entry.seq > seq);
    let expected = seq + 1;
    for (const entry of newer) {
      // A gap means the window dropped events: replaying would lose text.
      if ((entry.firstSeq ?? entry.seq) !== expected) return undefined;
      expected = entry.seq + 1;
    }
    return newer.length === 0 ? undefined : structuredClone(newer);
  }

  get status() {
    return this.snapshot.status;
  }

  get runId() {
    return this.snapshot.runId;
  }

  /** Resolves when every write requested so far has finished; rethrows the last write error. */
  async settled(): Promise<void> {
    await this.writeChain;
    if (this.lastWriteError !== undefined) {
      const error = this.lastWriteError;
      this.lastWriteError = undefined;
      throw error;
    }
  }

  private applyToState(event: RunEvent): void {
    const state = this.snapshot;
    switch (event.kind) {
      case "text_delta": {
        state.streamText += event.text;
        const excess = state.streamText.length - MAX_STREAM_TEXT_CHARS;
        if (excess > 0) {
          state.streamText = state.streamText.slice(excess);
          state.streamTextDropped += excess;
        }
        break;
      }
      case "text_reset":
        state.streamText = "";
        state.streamTextDropped = 0;
        break;
      case "item":
        // A committed assistant step replaces the streamed text it was built from.
        if (event.item.kind === "assistant") {
          state.streamText = "";
          state.streamTextDropped = 0;
        }
        if (event.item.kind === "tool") {
          const callId = event.item.callId;
          state.openTools = state.openTools.filter((call) => call.callId !== callId);
        }
        break;
      case "tool_start":
        state.openTools.push(event.call);
        break;
      case "prompt":
        state.prompt = event.prompt;
        break;
      case "prompt_closed":
        if (state.prompt?.promptId === event.promptId) state.prompt = undefined;
        break;
      case "run_end":
        state.status = event.status;
        state.endedAt = this.clock.now();
        state.openTools = [];
        state.prompt = undefined;
        if (event.message !== undefined) state.message = event.message;
        break;
      case "input":
        state.input = event.input;
        break;
      case "run_start":
      case "status":
        break;
    }
  }

  private pushToWindow(entry: JournalEntry): void {
    const events = this.snapshot.events;
    const last = events[events.length - 1];
    if (
      entry.event.kind === "text_delta" &&
      last?.event.kind === "text_delta" &&
      last.event.text.length + entry.event.text.length <= MAX_DELTA_ENTRY_CHARS
    ) {
      events[events.length - 1] = {
        seq: entry.seq,
        firstSeq: last.firstSeq ?? last.seq,
        at: entry.at,
        event: { kind: "text_delta", text: last.event.text + entry.event.text },
      };
      return;
    }
    events.push(entry);
    if (events.length > MAX_REPLAY_EVENTS) events.splice(0, events.length - MAX_REPLAY_EVENTS);
  }

  private scheduleDeltaFlush(): void {
    if (this.flushTimer !== undefined) return;
    this.flushTimer = this.clock.setTimeout(() => {
      this.flushTimer = undefined;
      void this.flushNow();
    }, DELTA_FLUSH_MS);
  }

  /** Write the snapshot now (cancelling a pending delta write); resolves when it is stored. */
  flushNow(): Promise<void> {
    if (this.flushTimer !== undefined) {
      this.clock.clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    const copy = this.current();
    this.writeChain = this.writeChain.then(async () => {
      try {
        await this.sink.write(runUiKey(copy.tabId), copy);
      } catch (error) {
        this.lastWriteError = error;
      }
    });
    return this.writeChain;
  }
}
