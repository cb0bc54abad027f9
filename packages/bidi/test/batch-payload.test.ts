import { describe, expect, it } from "vitest";
import {
  MAX_PAYLOAD_BYTES,
  MAX_SESSION_METADATA_BYTES,
  MAX_WAIT_SECTION_BYTES,
} from "../src/batch/budgets.js";
import { assemblePayload, type PayloadParts } from "../src/batch/payload.js";
import type { FrameReport, RecordedEvent } from "../src/batch/types.js";

function event(seq: number, padBytes: number): RecordedEvent {
  return {
    seq,
    receivedAt: 0,
    method: "log.entryAdded",
    bytes: padBytes,
    params: { text: "e".repeat(padBytes) },
    summarized: false,
  };
}

const bigFrames: FrameReport[] = [
  {
    id: 1,
    method: "x",
    status: "ok",
    response: { type: "success", id: 1, result: { data: "d".repeat(890 * 1024) } },
  },
];

describe("assemblePayload", () => {
  it("keeps everything when it fits", () => {
    const out = assemblePayload({
      session: { browser: "firefox" },
      frames: [],
      events: [event(1, 10)],
      lostEvents: 0,
    });
    expect(out.payload.events).toHaveLength(1);
    expect(out.payload.eventsOmitted).toBeUndefined();
    expect(JSON.parse(out.text)).toEqual(out.payload);
  });

  it("drops the oldest events first to stay within 1 MiB", () => {
    const events = Array.from({ length: 40 }, (_, i) => event(i + 1, 7 * 1024));
    const out = assemblePayload({ session: {}, frames: bigFrames, events, lostEvents: 3 });
    expect(out.bytes).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(out.eventsDropped).toBeGreaterThan(0);
    const seqs = out.payload.events.map((e) => e.seq);
    expect(seqs.at(-1)).toBe(40);
    expect(seqs[0]).toBe(out.eventsDropped + 1);
    expect(out.payload.eventsOmitted).toMatchObject({
      droppedForSize: out.eventsDropped,
      lostToHistoryLimit: 3,
    });
  });

  it("reports its size as the UTF-8 bytes of its text, with or without events, wait and omissions", () => {
    const frames: FrameReport[] = [
      {
        id: 1,
        method: "m",
        status: "ok",
        response: { type: "success", id: 1, result: { s: "é ✓ \ud83d\ude00" } },
      },
    ];
    const cases: PayloadParts[] = [
      { session: { b: "ø" }, frames, events: [], lostEvents: 0 },
      { session: {}, frames: [], events: [event(1, 5), event(2, 9)], lostEvents: 2 },
      {
        session: { blob: "ß".repeat(MAX_SESSION_METADATA_BYTES) },
        frames,
        wait: { status: "matched" as const, matched: [event(3, 4)] },
        events: [event(4, 3)],
        lostEvents: 0,
      },
      {
        session: {},
        frames: bigFrames,
        events: Array.from({ length: 40 }, (_, i) => event(i + 1, 7 * 1024)),
        lostEvents: 0,
      },
    ];
    for (const parts of cases) {
      const out = assemblePayload(parts);
      expect(out.bytes).toBe(Buffer.byteLength(out.text, "utf8"));
      expect(JSON.parse(out.text)).toEqual(out.payload);
    }
  });

  it("replaces oversized session metadata and waits by truncation markers", () => {
    const out = assemblePayload({
      session: { blob: "s".repeat(MAX_SESSION_METADATA_BYTES) },
      frames: [],
      wait: { status: "matched", matched: Array.from({ length: 8 }, (_, i) => event(i, 13 * 1024)) },
      events: [],
      lostEvents: 0,
    });
    expect(out.payload.session).toMatchObject({ truncated: true });
    expect(out.payload.wait).toMatchObject({ status: "truncated" });
    expect((out.payload.wait as { bytes: number }).bytes).toBeGreaterThan(MAX_WAIT_SECTION_BYTES);
  });
});
