/**
 * NetworkActivity's bookkeeping, fed BiDi network events through a real BidiClient over an
 * in-memory transport (the events Firefox sends are covered end to end in
 * trusted-page-actions.test.ts; here the clock is ours, so long polls and forgetting are tested).
 */
import { BidiClient, type BidiTransport } from "@webbrain/bidi";
import { describe, expect, it } from "vitest";
import { LONG_POLL_MS, NetworkActivity } from "../src/browser/network-activity.js";

class EventFeed implements BidiTransport {
  #deliver: ((text: string) => void) | undefined;
  send(): void {}
  onMessage(handler: (text: string) => void): void {
    this.#deliver = handler;
  }
  onClose(): void {}
  async close(): Promise<void> {}
  event(method: string, params: Record<string, unknown>): void {
    this.#deliver?.(JSON.stringify({ type: "event", method, params }));
  }
}

function setup() {
  const feed = new EventFeed();
  let now = 1_000;
  const network = new NetworkActivity(new BidiClient(feed), () => now);
  network.start();
  const request = (id: string, context: string, initiatorType: string | null, url = `https://a.test/${id}`) =>
    feed.event("network.beforeRequestSent", {
      context,
      request: { request: id, url, initiatorType },
    });
  const finish = (
    id: string,
    how: "network.responseCompleted" | "network.fetchError" = "network.responseCompleted",
  ) => feed.event(how, { context: "tab", request: { request: id, url: "" } });
  return { feed, network, request, finish, advance: (ms: number) => (now += ms) };
}

const TAB = new Set(["tab", "frame"]);

describe("NetworkActivity", () => {
  it("counts fetch and XHR of the tab and its frames until they end, and nothing else", () => {
    const { network, request, finish } = setup();
    request("1", "tab", "fetch");
    request("2", "frame", "xmlhttprequest");
    request("3", "tab", "img");
    request("4", "tab", null);
    request("5", "other-tab", "fetch");
    expect(network.pending(TAB).map((r) => r.url)).toEqual(["https://a.test/1", "https://a.test/2"]);
    request("1", "tab", "fetch", "https://a.test/redirected"); // a redirect keeps its id
    finish("1");
    finish("2", "network.fetchError");
    expect(network.pending(TAB)).toEqual([]);
    expect(network.pending(new Set(["other-tab"]))).toHaveLength(1);
  });

  it("stops counting a long poll after LONG_POLL_MS, and a destroyed context drops its requests", () => {
    const { feed, network, request, advance } = setup();
    request("1", "tab", "fetch");
    advance(LONG_POLL_MS - 1);
    expect(network.pending(TAB)).toHaveLength(1);
    advance(1);
    expect(network.pending(TAB)).toEqual([]);
    request("2", "frame", "fetch");
    feed.event("browsingContext.contextDestroyed", { context: "frame" });
    expect(network.pending(TAB)).toEqual([]);
  });

  it("waitForIdle wakes when the last request ends, and answers false at its timeout", async () => {
    const { network, request, finish } = setup();
    request("1", "tab", "fetch");
    const idle = network.waitForIdle(TAB, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 5));
    finish("1");
    expect(await idle).toBe(true);
    request("2", "tab", "fetch");
    // The injected clock does not move: the timeout is measured on it, so 0 ms means "now".
    expect(await network.waitForIdle(TAB, 0)).toBe(false);
  });
});
