import { describe, expect, it } from "vitest";
import {
  type Clock,
  DELTA_FLUSH_MS,
  type JournalSink,
  MAX_REPLAY_EVENTS,
  MAX_STREAM_TEXT_CHARS,
  RunJournal,
} from "../src/background/run-journal.js";
import type { RunSnapshot } from "../src/shared/run-events.js";

/** A clock whose time only moves when the test says so. */
class FakeClock implements Clock {
  time = 1_000;
  private timers = new Map<number, { at: number; callback: () => void }>();
  private nextId = 1;
  now() {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number) {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown) {
    this.timers.delete(handle as number);
  }
  advance(ms: number) {
    this.time += ms;
    for (const [id, timer] of [...this.timers]) {
      if (timer.at <= this.time) {
        this.timers.delete(id);
        timer.callback();
      }
    }
  }
  get pending() {
    return this.timers.size;
  }
}

class RecordingSink implements JournalSink {
  writes: { key: string; snapshot: RunSnapshot }[] = [];
  async write(key: string, snapshot: RunSnapshot) {
    this.writes.push({ key, snapshot });
  }
}

function setup() {
  const clock = new FakeClock();
  const sink = new RecordingSink();
  const journal = new RunJournal("7", "run-1", "ask", sink, clock);
  return { clock, sink, journal };
}

describe("RunJournal", () => {
  it("numbers events one by one and writes non-delta events at once under runUi:<tabId>", async () => {
    const { sink, journal } = setup();
    const first = journal.append({ kind: "run_start", runId: "run-1", mode: "ask" });
    const second = journal.append({ kind: "status", text: "thinking" });
    await journal.settled();
    expect([first.seq, second.seq]).toEqual([1, 2]);
    expect(sink.writes.map((w) => [w.key, w.snapshot.seq])).toEqual([
      ["runUi:7", 1],
      ["runUi:7", 2],
    ]);
  });

  it("coalesces deltas into one write after 200 ms, and a tool start flushes at once", async () => {
    const { clock, sink, journal } = setup();
    journal.append({ kind: "run_start", runId: "run-1", mode: "act" });
    await journal.settled();
    sink.writes = [];
    journal.append({ kind: "text_delta", text: "Hel" });
    clock.advance(100);
    journal.append({ kind: "text_delta", text: "lo" });
    await journal.settled();
    expect(sink.writes).toHaveLength(0);
    clock.advance(DELTA_FLUSH_MS - 100);
    await journal.settled();
    expect(sink.writes).toHaveLength(1);
    expect(sink.writes[0]?.snapshot.streamText).toBe("Hello");

    journal.append({ kind: "text_delta", text: " world" });
    journal.append({ kind: "tool_start", call: { callId: "c1", name: "click_ax", args: '{"ref_id":3}' } });
    await journal.settled();
    // The pre-tool checkpoint carries the pending delta and cancels the timer.
    expect(sink.writes).toHaveLength(2);
    expect(sink.writes[1]?.snapshot.streamText).toBe("Hello world");
    expect(sink.writes[1]?.snapshot.openTools.map((t) => t.callId)).toEqual(["c1"]);
    expect(clock.pending).toBe(0);
  });

  it("terminal events persist immediately with the final status and clear open state", async () => {
    const { sink, journal } = setup();
    journal.append({ kind: "run_start", runId: "run-1", mode: "act" });
    journal.append({ kind: "tool_start", call: { callId: "c1", name: "navigate", args: "{}" } });
    journal.append({
      kind: "prompt",
      prompt: { promptId: "p1", kind: "plan", title: "Plan", body: "1. go", choices: [] },
    });
    journal.append({ kind: "run_end", status: "stopped", message: "Stopped by you." });
    await journal.settled();
    const last = sink.writes.at(-1)?.snapshot;
    expect(last?.status).toBe("stopped");
    expect(last?.openTools).toEqual([]);
    expect(last?.prompt).toBeUndefined();
    expect(last?.message).toBe("Stopped by you.");
    expect(() => journal.append({ kind: "status", text: "late" })).toThrow(/already ended/);
  });

  it("commits streamed text when the step's assistant item arrives, so nothing is shown twice", () => {
    const { journal } = setup();
    journal.append({ kind: "text_delta", text: "Answer: 4" });
    expect(journal.current().streamText).toBe("Answer: 4");
    journal.append({ kind: "item", item: { kind: "assistant", text: "Answer: 4", at: 1 } });
    expect(journal.current().streamText).toBe("");
  });

  it("keeps a 256-event window but the full streamed text separately", () => {
    const { journal } = setup();
    journal.append({ kind: "text_delta", text: "start " });
    for (let i = 0; i < MAX_REPLAY_EVENTS + 10; i++) {
      journal.append({ kind: "status", text: `s${i}` });
      journal.append({ kind: "text_delta", text: `${i} ` });
    }
    const snapshot = journal.current();
    expect(snapshot.events).toHaveLength(MAX_REPLAY_EVENTS);
    expect(snapshot.events[0]?.seq).toBeGreaterThan(2);
    expect(snapshot.streamText.startsWith("start 0 1 2 ")).toBe(true);
    expect(snapshot.streamText.endsWith(`${MAX_REPLAY_EVENTS + 9} `)).toBe(true);
  });

  it("merges consecutive deltas into one window entry that knows the range it covers", () => {
    const { journal } = setup();
    journal.append({ kind: "status", text: "a" });
    journal.append({ kind: "text_delta", text: "x" });
    journal.append({ kind: "text_delta", text: "y" });
    journal.append({ kind: "text_delta", text: "z" });
    const events = journal.current().events;
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ seq: 4, firstSeq: 2, event: { kind: "text_delta", text: "xyz" } });
  });

  it("bounds the streamed text from the front and counts what it dropped", () => {
    const { journal } = setup();
    const chunk = "a".repeat(30_000);
    for (let i = 0; i < 4; i++) journal.append({ kind: "text_delta", text: chunk });
    journal.append({ kind: "text_delta", text: "END" });
    const snapshot = journal.current();
    expect(snapshot.streamText.length).toBe(MAX_STREAM_TEXT_CHARS);
    expect(snapshot.streamText.endsWith("END")).toBe(true);
    expect(snapshot.streamTextDropped).toBe(4 * 30_000 + 3 - MAX_STREAM_TEXT_CHARS);
  });

  it("replays events after a sequence number, or asks for a resync when the window lost some", () => {
    const { journal } = setup();
    journal.append({ kind: "status", text: "one" });
    journal.append({ kind: "text_delta", text: "a" });
    journal.append({ kind: "text_delta", text: "b" });
    journal.append({ kind: "status", text: "two" });
    expect(journal.eventsAfter(1)?.map((e) => e.seq)).toEqual([3, 4]);
    // Seq 2 sits inside the merged delta entry (2..3): replaying it would repeat "a".
    expect(journal.eventsAfter(2)).toBeUndefined();
    expect(journal.eventsAfter(4)).toEqual([]);
    for (let i = 0; i < MAX_REPLAY_EVENTS; i++) journal.append({ kind: "status", text: `${i}` });
    expect(journal.eventsAfter(1)).toBeUndefined();
  });

  it("never lets an older snapshot overwrite a newer one, and reports a failed write", async () => {
    const clock = new FakeClock();
    const order: number[] = [];
    let failNext = false;
    const sink: JournalSink = {
      async write(_key, snapshot) {
        // The first write is slow; a naive implementation would finish it last.
        if (snapshot.seq === 1) await new Promise((r) => setTimeout(r, 20));
        if (failNext) {
          failNext = false;
          throw new Error("quota exceeded");
        }
        order.push(snapshot.seq);
      },
    };
    const journal = new RunJournal("3", "r", "act", sink, clock);
    journal.append({ kind: "status", text: "slow" });
    journal.append({ kind: "status", text: "fast" });
    await journal.settled();
    expect(order).toEqual([1, 2]);
    failNext = true;
    journal.append({ kind: "status", text: "fails" });
    await expect(journal.settled()).rejects.toThrow("quota exceeded");
  });
});
