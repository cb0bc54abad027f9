import { type FakeGrid, startFakeGrid } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectBidi,
  connectWebDriver,
  evaluate,
  getTopLevelContext,
  navigate,
  parseBidiEndpoint,
  WebDriverHttpError,
} from "../src/index.js";
import { processGroupAlive } from "./process-probe.js";

let grid: FakeGrid;
beforeAll(async () => {
  grid = await startFakeGrid();
});
afterAll(async () => {
  await grid?.close();
});

describe("connectWebDriver (Selenium Grid 4 path)", () => {
  it("creates the session over HTTP, speaks BiDi on the returned socket, deletes on close", async () => {
    const session = await connectWebDriver(grid.url);
    const [sessionId, browser] = [...grid.sessions.entries()][0] ?? [];
    expect(session.sessionId).toBe(sessionId);
    expect(session.browserName).toBe("firefox");
    try {
      const context = await getTopLevelContext(session.client);
      await navigate(session.client, context, "data:text/html,<title>via grid</title>");
      expect(await evaluate(session.client, context, "document.title")).toBe("via grid");
      const events: string[] = [];
      session.client.on("browsingContext.load", (p) => events.push(p.url));
      const sub = await session.client.subscribe(["browsingContext.load"]);
      await navigate(session.client, context, "data:text/html,<title>second</title>");
      await expect.poll(() => events.some((u) => u.includes("second"))).toBe(true);
      await sub.unsubscribe();
    } finally {
      await session.close();
    }
    const post = grid.requests.find((r) => r.method === "POST");
    expect(post?.body).toMatchObject({
      capabilities: { alwaysMatch: { browserName: "firefox", webSocketUrl: true } },
    });
    expect(grid.requests.some((r) => r.method === "DELETE" && r.path === `/session/${sessionId}`)).toBe(true);
    expect(grid.relayedMethods).not.toContain("session.new");
    expect(grid.relayedMethods).toContain("script.evaluate");
    expect(grid.sessions.size).toBe(0);
    expect(browser && processGroupAlive(browser.pid)).toBe(false);
    expect(session.client.closed).toBe(true);
  });

  it("turns a refused new session into WebDriverHttpError with the WebDriver code", async () => {
    const err = await connectWebDriver(grid.url, { capabilities: { "fake:noSlots": true } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WebDriverHttpError);
    expect((err as WebDriverHttpError).status).toBe(500);
    expect((err as WebDriverHttpError).code).toBe("session not created");
    expect((err as Error).message).toContain("no free slots on the grid");
  });

  it("reports an unreachable endpoint clearly", async () => {
    const err = await connectWebDriver("http://127.0.0.1:1", { httpTimeoutMs: 2_000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WebDriverHttpError);
    expect((err as Error).message).toContain("POST http://127.0.0.1:1/session failed");
  });
});

describe("connectBidi endpoints", () => {
  it("maps base URLs to /session and keeps pre-existing session URLs", () => {
    expect(parseBidiEndpoint("ws://127.0.0.1:9222")).toEqual({
      dialUrl: "ws://127.0.0.1:9222/session",
      existingSessionId: undefined,
    });
    expect(parseBidiEndpoint("ws://h:1/session/abc").existingSessionId).toBe("abc");
  });

  it("rejects http URLs, pointing at connectWebDriver", async () => {
    await expect(connectBidi("http://127.0.0.1:4444")).rejects.toThrow(/connectWebDriver/);
  });

  it("reports a refused WebSocket clearly", async () => {
    await expect(connectBidi("ws://127.0.0.1:1")).rejects.toThrow(
      /Could not open a WebSocket to ws:\/\/127\.0\.0\.1:1/,
    );
  });
});
