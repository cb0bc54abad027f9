/**
 * Bench: what the run journal's 200 ms delta coalescing saves in storage writes.
 *
 * A streamed reply is replayed into RunJournal on a simulated clock (deltas every
 * `deltaEveryMs`, a tool call every TOOL_EVERY deltas). Baseline, measured in the same run: the
 * same journal written after every event (what a naive mirror to storage.session does).
 * Printed: writes, bytes serialized, and CPU time spent building and serializing snapshots.
 */
import { type Clock, DELTA_FLUSH_MS, type JournalSink, RunJournal } from "../src/background/run-journal.js";
import type { RunSnapshot } from "../src/shared/run-events.js";

const TOOL_EVERY = 100;
const DELTA_TEXT = "word ";

interface Scenario {
  name: string;
  deltas: number;
  deltaEveryMs: number;
}

const SCENARIOS: Scenario[] = [
  { name: "fast local model, 2000 deltas every 15 ms", deltas: 2_000, deltaEveryMs: 15 },
  { name: "cloud model, 800 deltas every 40 ms", deltas: 800, deltaEveryMs: 40 },
  { name: "slow model, 200 deltas every 250 ms", deltas: 200, deltaEveryMs: 250 },
];

class SimClock implements Clock {
  time = 0;
  private timers: { at: number; callback: () => void; id: number }[] = [];
  private nextId = 1;
  now() {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number) {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, callback, id });
    return id;
  }
  clearTimeout(handle: unknown) {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  advanceTo(time: number) {
    this.time = time;
    const due = this.timers.filter((t) => t.at <= time);
    this.timers = this.timers.filter((t) => t.at > time);
    for (const timer of due) timer.callback();
  }
}

class CountingSink implements JournalSink {
  writes = 0;
  bytes = 0;
  async write(_key: string, snapshot: RunSnapshot) {
    this.writes++;
    this.bytes += JSON.stringify(snapshot).length;
  }
}

async function replay(scenario: Scenario, writeEveryEvent: boolean) {
  const clock = new SimClock();
  const sink = new CountingSink();
  const journal = new RunJournal("1", "bench", "act", sink, clock);
  const started = process.cpuUsage();
  journal.append({ kind: "run_start", runId: "bench", mode: "act" });
  for (let i = 1; i <= scenario.deltas; i++) {
    clock.advanceTo(i * scenario.deltaEveryMs);
    journal.append({ kind: "text_delta", text: DELTA_TEXT });
    if (i % TOOL_EVERY === 0) {
      journal.append({ kind: "tool_start", call: { callId: `c${i}`, name: "click_ax", args: "{}" } });
    }
    if (writeEveryEvent) void journal.flushNow();
  }
  clock.advanceTo(scenario.deltas * scenario.deltaEveryMs + DELTA_FLUSH_MS);
  journal.append({ kind: "run_end", status: "done" });
  await journal.settled();
  const cpu = process.cpuUsage(started);
  return { writes: sink.writes, bytes: sink.bytes, cpuMs: (cpu.user + cpu.system) / 1000 };
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;

for (const scenario of SCENARIOS) {
  const baseline = await replay(scenario, true);
  const coalesced = await replay(scenario, false);
  console.log(`\n${scenario.name}`);
  console.log(
    `  baseline (write per event): ${baseline.writes} writes, ${mb(baseline.bytes)}, ${baseline.cpuMs.toFixed(0)} ms CPU`,
  );
  console.log(
    `  coalesced (${DELTA_FLUSH_MS} ms):        ${coalesced.writes} writes, ${mb(coalesced.bytes)}, ${coalesced.cpuMs.toFixed(0)} ms CPU`,
  );
  console.log(
    `  ratio: ${(baseline.writes / coalesced.writes).toFixed(1)}x fewer writes, ${(baseline.bytes / coalesced.bytes).toFixed(1)}x fewer bytes, ${(baseline.cpuMs / Math.max(coalesced.cpuMs, 0.001)).toFixed(1)}x less CPU`,
  );
}
