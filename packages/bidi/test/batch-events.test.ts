import { describe, expect, it } from "vitest";
import { EVENT_HISTORY_ENTRIES, MAX_EVENT_BYTES } from "../src/batch/budgets.js";
import { EventHistory } from "../src/batch/event-history.js";

describe("EventHistory", () => {
  it("keeps the newest 200 entries and counts the undelivered ones it lost", () => {
    const history = new EventHistory(() => 1000);
    for (let n = 1; n <= 250; n += 1) history.record({ method: "log.entryAdded", params: { n } });
    expect(history.size).toBe(EVENT_HISTORY_ENTRIES);
    const { events, lost } = history.takeUndelivered();
    expect(events).toHaveLength(200);
    expect(events[0]?.params.n).toBe(51);
    expect(events.at(-1)?.params.n).toBe(250);
    expect(lost).toBe(50);
    expect(history.takeUndelivered()).toEqual({ events: [], lost: 0 });
    history.record({ method: "log.entryAdded", params: { n: 251 } });
    expect(history.takeUndelivered().events.map((e) => e.params.n)).toEqual([251]);
  });

  it("summarizes an event over 8 KiB: scalars kept and cut, nested params named", () => {
    const history = new EventHistory();
    const entry = history.record({
      method: "network.responseCompleted",
      params: { context: "CTX", big: "x".repeat(MAX_EVENT_BYTES), status: 200, request: { url: "u" } },
    });
    expect(entry.summarized).toBe(true);
    expect(entry.bytes).toBeGreaterThan(MAX_EVENT_BYTES);
    expect(entry.params.context).toBe("CTX");
    expect(entry.params.status).toBe(200);
    expect((entry.params.big as string).length).toBe(257);
    expect(entry.params.omittedParams).toEqual(["request"]);
    expect(JSON.stringify(entry).length).toBeLessThan(2048);

    const small = history.record({ method: "log.entryAdded", params: { text: "hi" } });
    expect(small).toMatchObject({ summarized: false, params: { text: "hi" } });
  });

  it("lets a wait match only later events, once each, and shows summaries of big ones", async () => {
    const history = new EventHistory();
    history.record({ method: "browsingContext.load", params: { context: "A" } });
    const wait = history.startWait({ methods: ["browsingContext.load", "log.entryAdded"], context: "A" });
    expect(wait.satisfied).toBe(false);
    history.record({ method: "browsingContext.load", params: { context: "B" } });
    history.record({
      method: "browsingContext.load",
      params: { context: "A", pad: "p".repeat(MAX_EVENT_BYTES) },
    });
    history.record({ method: "browsingContext.load", params: { context: "A" } });
    expect(wait.missing).toEqual(["log.entryAdded"]);
    history.record({ method: "log.entryAdded", params: { context: "A" } });
    await wait.done;
    expect(wait.matched.map((e) => e.summarized)).toEqual([true, false]);
    // A finished wait no longer listens.
    history.record({ method: "log.entryAdded", params: { context: "A" } });
    expect(wait.matched).toHaveLength(2);
  });
});
