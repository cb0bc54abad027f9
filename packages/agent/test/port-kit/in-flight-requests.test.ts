/**
 * InFlightRequests' bookkeeping with a scripted event source and clock: what counts, for whom,
 * for how long, and when a wait for none wakes. (Each port's feed from its browser's events is
 * tested in real Firefox: runner trusted-page-actions, add-on webext-port.)
 */
import { describe, expect, it } from "vitest";
import { LONG_POLL_MS } from "../../src/index.js";
import { scriptedRequests } from "./scripted-requests.js";

const TAB = new Set(["tab", "frame"]);

describe("InFlightRequests", () => {
  it("counts a request for its owner from began to ended; a redirect (same id) stays one request", () => {
    const s = scriptedRequests<string>();
    s.begin("1", "tab");
    s.begin("2", "frame");
    s.begin("3", "other-tab");
    expect(s.requests.pending(TAB).map((request) => request.url)).toEqual([
      "https://a.test/1",
      "https://a.test/2",
    ]);
    s.begin("1", "tab", "https://a.test/redirected");
    expect(s.requests.pending(TAB).map((request) => request.url)).toContain("https://a.test/1");
    s.end("1");
    s.end("2");
    expect(s.requests.pending(TAB)).toEqual([]);
    expect(s.requests.pending(new Set(["other-tab"]))).toHaveLength(1);
  });

  it("reports each request's age on the injected clock", () => {
    const s = scriptedRequests<number>();
    s.begin("1", 7);
    s.advance(250);
    expect(s.requests.pending(new Set([7]))).toEqual([{ url: "https://a.test/1", ageMs: 250 }]);
  });

  it("stops counting a long poll at LONG_POLL_MS, and an owner that is gone drops its requests", () => {
    const s = scriptedRequests<string>();
    s.begin("1", "tab");
    s.advance(LONG_POLL_MS - 1);
    expect(s.requests.pending(TAB)).toHaveLength(1);
    s.advance(1);
    expect(s.requests.pending(TAB)).toEqual([]);
    s.begin("2", "frame");
    s.begin("3", "tab");
    s.gone("frame");
    expect(s.requests.pending(TAB).map((request) => request.url)).toEqual(["https://a.test/3"]);
  });

  it("forgets a request whose end never came after five minutes, so a redirect of its id is new", () => {
    const s = scriptedRequests<string>();
    s.begin("1", "tab", "https://a.test/old");
    s.advance(5 * 60_000 + 1);
    expect(s.requests.pending(TAB)).toEqual([]);
    s.begin("1", "tab", "https://a.test/new");
    expect(s.requests.pending(TAB)).toEqual([{ url: "https://a.test/new", ageMs: 0 }]);
  });

  it("waitForIdle wakes when the last request ends, and answers false at its timeout", async () => {
    const s = scriptedRequests<string>();
    expect(await s.requests.waitForIdle(TAB, 0)).toBe(true);
    s.begin("1", "tab");
    s.begin("2", "frame");
    const idle = s.requests.waitForIdle(TAB, 60_000);
    s.end("1");
    setTimeout(() => s.end("2"), 5);
    expect(await idle).toBe(true);
    s.begin("3", "tab");
    // The injected clock does not move: the timeout is measured on it, so 0 ms means "now".
    expect(await s.requests.waitForIdle(TAB, 0)).toBe(false);
  });

  it("waitForIdle wakes when an owner is gone, and answers false at once on Stop", async () => {
    const s = scriptedRequests<string>();
    s.begin("1", "frame");
    const idle = s.requests.waitForIdle(TAB, 60_000);
    setTimeout(() => s.gone("frame"), 5);
    expect(await idle).toBe(true);
    s.begin("2", "tab");
    const stop = new AbortController();
    const stopped = s.requests.waitForIdle(TAB, 60_000, stop.signal);
    setTimeout(() => stop.abort(), 5);
    expect(await stopped).toBe(false);
    expect(await s.requests.waitForIdle(TAB, 60_000, stop.signal)).toBe(false);
  });

  it("start listens once; stop unsubscribes, forgets everything and wakes waits", async () => {
    const s = scriptedRequests<string>();
    s.requests.start();
    expect(s.subscriptions()).toBe(1);
    s.begin("1", "tab");
    const idle = s.requests.waitForIdle(TAB, 60_000);
    s.requests.stop();
    expect(await idle).toBe(true);
    expect(s.listening()).toBe(false);
    expect(s.requests.pending(TAB)).toEqual([]);
    s.requests.start();
    expect(s.subscriptions()).toBe(2);
  });
});
