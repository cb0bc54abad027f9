/**
 * The session table of `webbrain mcp --port` on its own, with fake timers: the cap counts
 * sessions still opening and still closing, a request in flight keeps a session from expiring,
 * and an idle one is ended once, freeing its slot only when its close is done.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type SessionEntry, SessionTable } from "../src/mcp/mcp-http-sessions.js";

const IDLE_MS = 1_000;

function entry(closed: string[], id: string, gate?: Promise<void>): SessionEntry {
  return {
    close: async (reason) => {
      await gate;
      closed.push(`${id}: ${reason}`);
    },
  };
}

describe("SessionTable", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds the cap across opening, open and closing sessions", async () => {
    const closed: string[] = [];
    const table = new SessionTable({ maxSessions: 2, idleTimeoutMs: IDLE_MS });
    expect(table.reserve()).toBe(true);
    expect(table.reserve()).toBe(true);
    expect(table.reserve()).toBe(false); // two opening: full
    table.release(); // one initialize was refused
    table.add("a", entry(closed, "a"));
    expect(table.reserve()).toBe(true);
    table.add("b", entry(closed, "b"));
    expect(table.reserve()).toBe(false);

    let open!: () => void;
    const slowClose = new Promise<void>((resolve) => {
      open = resolve;
    });
    const table2 = new SessionTable({ maxSessions: 1, idleTimeoutMs: IDLE_MS });
    expect(table2.reserve()).toBe(true);
    table2.add("c", entry(closed, "c", slowClose));
    const ending = table2.end("c", "closed by the client");
    expect(table2.reserve()).toBe(false); // its user context is still being removed
    open();
    await ending;
    expect(table2.reserve()).toBe(true);
    expect(closed).toEqual(["c: closed by the client"]);
  });

  it("expires a session only after it has been idle for the timeout, and only once", async () => {
    const closed: string[] = [];
    const table = new SessionTable({ maxSessions: 1, idleTimeoutMs: IDLE_MS });
    table.reserve();
    table.add("a", entry(closed, "a")); // its initialize is in flight
    await vi.advanceTimersByTimeAsync(5 * IDLE_MS);
    expect(closed).toEqual([]); // a request in flight is not idleness

    table.settled("a"); // the initialize answered: the idle clock starts
    table.started("a"); // a long tool call
    await vi.advanceTimersByTimeAsync(5 * IDLE_MS);
    expect(closed).toEqual([]);

    table.settled("a");
    await vi.advanceTimersByTimeAsync(IDLE_MS - 1);
    expect(closed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(closed).toEqual(["a: idle for 1 s"]);
    expect(table.get("a")).toBeUndefined();
    await table.end("a", "server stopping"); // already ended: nothing runs twice
    expect(closed).toHaveLength(1);
    expect(table.reserve()).toBe(true); // the slot is free again
  });
});
