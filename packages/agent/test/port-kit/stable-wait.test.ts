/**
 * waitForStablePage, the wait_for_stable both ports run, with a scripted page wait, request feed
 * and clock: the page's quiet DOM first, then the requests in flight, the DOM again after them,
 * one timeout over it all, and Stop in the port's own words. (Real pages: runner
 * trusted-page-actions, add-on webext-port.)
 */
import { describe, expect, it } from "vitest";
import { type PageResult, type StableWaitDeps, waitForStablePage } from "../../src/index.js";
import { scriptedRequests } from "./scripted-requests.js";

class PortStop extends Error {}

function setup(
  pageAnswer: (params: Record<string, unknown>) => PageResult = () => ({ success: true, stable: true }),
) {
  const s = scriptedRequests<string>();
  const pageCalls: Record<string, unknown>[] = [];
  const deps: StableWaitDeps<string> = {
    pageWait: async (params) => {
      pageCalls.push(params);
      return pageAnswer(params);
    },
    requests: s.requests,
    owners: async () => new Set(["tab", "frame"]),
    stopError: () => new PortStop("stopped"),
    now: s.now,
  };
  return { ...s, deps, pageCalls };
}

describe("waitForStablePage", () => {
  it("answers the page's quiet DOM when nothing is in flight", async () => {
    const t = setup();
    const result = await waitForStablePage(t.deps, { quiet_ms: 100 });
    expect(result).toEqual({
      success: true,
      stable: true,
      waited_ms: 0,
      network_wait_ms: 0,
      requests_in_flight: 0,
    });
    expect(t.pageCalls).toEqual([{ quiet_ms: 100, timeout_ms: 5000 }]);
  });

  it("waits for the requests in flight, then asks the page again with what is left of the timeout", async () => {
    const t = setup();
    t.begin("1", "frame");
    t.begin("2", "other-tab");
    setTimeout(() => {
      t.advance(300);
      t.end("1");
    }, 5);
    const result = await waitForStablePage(t.deps, { timeout: 2000 });
    expect(result).toMatchObject({
      success: true,
      waited_ms: 300,
      network_wait_ms: 300,
      requests_in_flight: 0,
    });
    // The alias `timeout` becomes timeout_ms; the second round gets the rest of the one timeout.
    expect(t.pageCalls).toEqual([{ timeout_ms: 2000 }, { timeout_ms: 1700 }]);
  });

  it("answers a typed timeout naming the requests still in flight", async () => {
    const t = setup();
    for (const id of ["1", "2", "3", "4"]) t.begin(id, "tab");
    const result = await waitForStablePage(t.deps, { timeout_ms: 0 });
    expect(result).toMatchObject({ success: false, code: "timeout", requests_in_flight: 4 });
    expect(result.error).toBe(
      "wait_for_stable: the page still had 4 request(s) in flight after 0 ms (https://a.test/1, https://a.test/2, https://a.test/3); read the page as it is, or wait longer with a larger timeout_ms.",
    );
  });

  it("passes the page's own failure on, and leaves an out-of-range timeout to the page layer", async () => {
    const t = setup((params) =>
      params.timeout_ms === 90_000
        ? { success: false, code: "bad_params", error: "timeout_ms must be between 0 and 60000" }
        : { success: false, code: "timeout", error: "the DOM kept changing" },
    );
    t.begin("1", "tab");
    expect(await waitForStablePage(t.deps, { timeout_ms: 90_000 })).toMatchObject({ code: "bad_params" });
    expect(t.pageCalls.at(-1)).toEqual({ timeout_ms: 90_000 });
    expect(await waitForStablePage(t.deps, {})).toMatchObject({
      code: "timeout",
      error: "the DOM kept changing",
    });
  });

  it("throws the port's Stop error when Stop ends the network wait", async () => {
    const t = setup();
    t.begin("1", "tab");
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 5);
    await expect(waitForStablePage(t.deps, { timeout_ms: 60_000 }, stop.signal)).rejects.toBeInstanceOf(
      PortStop,
    );
  });
});
