// BidiClient behaviour that depends only on our code, driven over a real local WebSocket server
// that accepts commands and never answers (no Firefox needed to make a socket drop).
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import {
  BidiClient,
  BidiConnectionClosedError,
  BidiTimeoutError,
  connectWebSocketTransport,
} from "../src/index.js";

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    for (const c of server.clients) c.terminate();
    await new Promise((r) => server.close(r));
  }
});

/** A server that records command frames and never answers them. */
async function silentServer(): Promise<{ url: string; received: string[]; server: WebSocketServer }> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  servers.push(server);
  await new Promise((r) => server.once("listening", r));
  const received: string[] = [];
  server.on("connection", (ws) => ws.on("message", (d) => received.push(String(d))));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/session`, received, server };
}

describe("BidiClient over a socket that drops", () => {
  it("fails every pending command at once when the peer closes the socket", async () => {
    const { url, received, server } = await silentServer();
    const client = new BidiClient(await connectWebSocketTransport(url), { defaultTimeoutMs: 0 });
    const first = client.send("session.status", {});
    const second = client.sendUntyped("session.status", {});
    const settled = Promise.allSettled([first, second]);
    await expect.poll(() => received.length).toBe(2);
    expect(received.map((f) => JSON.parse(f).id)).toEqual([1, 2]);
    for (const ws of server.clients) ws.close(1011, "server going away");
    const results = await settled;
    for (const r of results) {
      expect(r.status).toBe("rejected");
      const err = (r as PromiseRejectedResult).reason as Error;
      expect(err).toBeInstanceOf(BidiConnectionClosedError);
      expect(err.message).toContain("the BiDi WebSocket closed (close code 1011, server going away)");
    }
    expect(client.closed).toBe(true);
    expect(client.pendingCount).toBe(0);
  });

  it("fails pending commands when this client closes", async () => {
    const { url, received } = await silentServer();
    const client = new BidiClient(await connectWebSocketTransport(url), { defaultTimeoutMs: 0 });
    const pending = client.send("session.status", {}).catch((e: unknown) => e);
    await expect.poll(() => received.length).toBe(1);
    await client.close();
    const err = await pending;
    expect(err).toBeInstanceOf(BidiConnectionClosedError);
    expect((err as Error).message).toContain("closed by this client");
  });

  it("uses the client-wide default timeout when a command sets none", async () => {
    const { url } = await silentServer();
    const client = new BidiClient(await connectWebSocketTransport(url), { defaultTimeoutMs: 100 });
    try {
      const err = await client.send("session.status", {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BidiTimeoutError);
      expect((err as Error).message).toContain("within 100 ms");
      expect(client.pendingCount).toBe(0);
    } finally {
      await client.close();
    }
  });

  it("rejects params that cannot be serialized without sending anything", async () => {
    const { url, received } = await silentServer();
    const client = new BidiClient(await connectWebSocketTransport(url));
    try {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      await expect(client.sendUntyped("script.evaluate", circular)).rejects.toThrow(
        /cannot be serialized to JSON/,
      );
      await expect(client.send("session.status", { big: 1n } as never)).rejects.toThrow(
        /cannot be serialized/,
      );
      expect(received).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
