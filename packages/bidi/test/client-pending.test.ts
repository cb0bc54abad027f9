// How BidiClient keeps its pending commands cheap without changing what callers see: one shared
// timeout timer, one abort listener per signal, stack capture on request, and the answer's wire
// size. Driven over a real local WebSocket server that answers some methods and ignores the rest.
import { getEventListeners } from "node:events";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { answerWireBytes, answerWireText, sendAnswerFrame } from "../src/batch/index.js";
import {
  BidiAbortError,
  BidiClient,
  BidiTimeoutError,
  connectWebSocketTransport,
  type TimerOperations,
} from "../src/index.js";

const servers: WebSocketServer[] = [];
const clients: BidiClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) {
    for (const c of server.clients) c.terminate();
    await new Promise((r) => server.close(r));
  }
});

/** Answers `echo.text` with its params' text (any characters); never answers anything else. */
async function connectedClient(timers?: TimerOperations): Promise<BidiClient> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  servers.push(server);
  await new Promise((r) => server.once("listening", r));
  server.on("connection", (ws) =>
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as { id: number; method: string; params: { text?: string } };
      if (frame.method !== "echo.text") return;
      ws.send(JSON.stringify({ type: "success", id: frame.id, result: { text: frame.params.text } }));
    }),
  );
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/session`;
  const client = new BidiClient(await connectWebSocketTransport(url), { defaultTimeoutMs: 0, timers });
  clients.push(client);
  return client;
}

/**
 * Node's timers, recording the ones one client makes: whether that client holds the process open
 * is whether one of its timers is armed and ref'ed. (Counting the process's active timers instead
 * measures everything else the process runs too: the test runner's own timers move it.)
 */
function watchedTimers(): TimerOperations & { holdingProcess(): number; created: number } {
  const armed = new Set<NodeJS.Timeout>();
  return {
    created: 0,
    setTimeout(callback, ms) {
      this.created += 1;
      const timer: NodeJS.Timeout = setTimeout(() => {
        armed.delete(timer);
        callback();
      }, ms);
      armed.add(timer);
      return timer;
    },
    clearTimeout(timer) {
      armed.delete(timer);
      clearTimeout(timer);
    },
    holdingProcess: () => [...armed].filter((timer) => timer.hasRef()).length,
  };
}

describe("BidiClient pending commands", () => {
  it("times out each command at its own deadline through one shared timer", async () => {
    const client = await connectedClient();
    const started = performance.now();
    const long = client.sendUntyped("never.answered", {}, { timeoutMs: 400 }).catch((e) => e);
    const short = client.sendUntyped("never.answered", {}, { timeoutMs: 100 }).catch((e) => e);
    const shortError = await short;
    const shortAt = performance.now() - started;
    expect(shortError).toBeInstanceOf(BidiTimeoutError);
    expect((shortError as Error).message).toContain("within 100 ms");
    expect(client.pendingCount).toBe(1);
    const longError = await long;
    const longAt = performance.now() - started;
    expect(longError).toBeInstanceOf(BidiTimeoutError);
    expect((longError as Error).message).toContain("within 400 ms");
    // Neither fires early; the later one is not dragged forward by the earlier one.
    expect(shortAt).toBeGreaterThanOrEqual(99);
    expect(longAt).toBeGreaterThanOrEqual(399);
    expect(client.pendingCount).toBe(0);
  });

  it("holds the process open only while a command with a timeout is pending", async () => {
    const timers = watchedTimers();
    const client = await connectedClient(timers);
    expect(timers.holdingProcess()).toBe(0);
    const answered = client.sendUntyped("echo.text", { text: "a" }, { timeoutMs: 60_000 });
    expect(timers.holdingProcess()).toBe(1);
    await answered;
    expect(timers.holdingProcess()).toBe(0);
    // A later command with a later deadline re-uses the armed timer and holds the process again.
    const pending = client.sendUntyped("never.answered", {}, { timeoutMs: 90_000 });
    expect(timers.holdingProcess()).toBe(1);
    expect(timers.created).toBe(1);
    const failed = pending.catch((e: unknown) => e);
    await client.close();
    expect(await failed).toBeInstanceOf(Error);
    expect(timers.holdingProcess()).toBe(0);
  });

  it("gives a signal one listener for all its commands and aborts only those", async () => {
    const client = await connectedClient();
    const controller = new AbortController();
    const other = new AbortController();
    const first = client.sendUntyped("never.answered", {}, { signal: controller.signal });
    const second = client.sendUntyped("never.answered", {}, { signal: controller.signal });
    const unrelated = client.sendUntyped("never.answered", {}, { signal: other.signal });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    const settled = Promise.allSettled([first, second]);
    controller.abort(new Error("user pressed stop"));
    for (const result of await settled) {
      expect(result.status).toBe("rejected");
      const error = (result as PromiseRejectedResult).reason as Error;
      expect(error).toBeInstanceOf(BidiAbortError);
      expect(error.message).toContain("user pressed stop");
    }
    expect(client.pendingCount).toBe(1);
    const unrelatedFailure = unrelated.catch((e: unknown) => e);
    await client.close();
    expect(await unrelatedFailure).not.toBeInstanceOf(BidiAbortError);
    expect(getEventListeners(other.signal, "abort")).toHaveLength(0);
  });

  it("drops the listener of a signal whose commands all settled once another signal comes", async () => {
    const client = await connectedClient();
    const first = new AbortController();
    await client.sendUntyped("echo.text", { text: "a" }, { signal: first.signal });
    await client.sendUntyped("echo.text", { text: "b" }, { signal: first.signal });
    expect(getEventListeners(first.signal, "abort")).toHaveLength(1);
    const second = new AbortController();
    await client.sendUntyped("echo.text", { text: "c" }, { signal: second.signal });
    expect(getEventListeners(first.signal, "abort")).toHaveLength(0);
    expect(getEventListeners(second.signal, "abort")).toHaveLength(1);
    // Aborting a signal nothing uses any more changes nothing.
    first.abort();
    const answer = await client.sendUntyped("echo.text", { text: "d" }, { signal: second.signal });
    expect(answer).toEqual({ text: "d" });
  });

  it("captures the caller's stack unless told not to", async () => {
    const client = await connectedClient();
    async function callerWithAName(captureStack: boolean): Promise<Error> {
      return (await client
        .sendUntyped("never.answered", {}, { timeoutMs: 20, captureStack })
        .catch((e: unknown) => e)) as Error;
    }
    const withStack = await callerWithAName(true);
    expect(withStack.stack).toContain("callerWithAName");
    const without = await callerWithAName(false);
    expect(without).toBeInstanceOf(BidiTimeoutError);
    expect(without.stack).toBe(`BidiTimeoutError: ${without.message}\n`);
  });

  it("knows each raw answer's UTF-8 size from the wire, also across an id swap", async () => {
    const client = await connectedClient();
    for (const [callerId, text] of [
      [7, "plain ascii"],
      [123_456_789, 'Grüße, 日本語, emoji 😀, quote " and backslash \\'],
      [0, "x".repeat(70_000)],
    ] as const) {
      const answer = await sendAnswerFrame(client, { id: callerId, method: "echo.text", params: { text } });
      const wire = answerWireText(answer);
      expect(wire).toBe(JSON.stringify(answer));
      expect(answerWireBytes(answer)).toBe(Buffer.byteLength(wire ?? "", "utf8"));
    }
    const withoutId = await sendAnswerFrame(client, { method: "echo.text", params: { text: "ü" } });
    expect(answerWireBytes(withoutId)).toBe(Buffer.byteLength(answerWireText(withoutId) ?? "", "utf8"));
    expect(answerWireBytes({})).toBeUndefined();
  });

  it("as an answer frame resolves success answers unparsed, parses the result on first read, and swaps the id", async () => {
    const client = await connectedClient();
    const text = 'Grüße "quoted" {{1.x}} \\ 😀';
    const answer = await sendAnswerFrame(client, { id: 42, method: "echo.text", params: { text } });
    const wire = answerWireText(answer);
    expect(wire).toBe(`{"type":"success","id":42,"result":${JSON.stringify({ text })}}`);
    expect(answerWireBytes(answer)).toBe(Buffer.byteLength(wire ?? "", "utf8"));
    expect(typeof Object.getOwnPropertyDescriptor(answer as object, "result")?.get).toBe("function");
    // Read as a parsed answer would be: the result is there, own, enumerable, and stable.
    expect(Object.hasOwn(answer as object, "result")).toBe(true);
    expect(answer).toEqual({ type: "success", id: 42, result: { text } });
    const result = (answer as { result: unknown }).result;
    expect((answer as { result: unknown }).result).toBe(result);
    expect(JSON.stringify(answer)).toBe(wire);
    // A plain command gets its result parsed (a plain value, no getter behind it).
    const parsed = await client.sendUntyped("echo.text", { text });
    expect(parsed).toEqual({ text });
  });
});
