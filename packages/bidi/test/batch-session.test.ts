import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BatchSession } from "../src/batch/batch-session.js";
import { BatchInputError } from "../src/batch/errors.js";
import type { BatchPayload } from "../src/batch/payload.js";
import { nodeSpoolFs, SpoolStore } from "../src/batch/spool.js";
import { errorFrame, FakeTransport, success } from "./batch-fake-transport.js";

let root: string;
let spool: SpoolStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "batch-session-test-"));
  spool = new SpoolStore({ fs: nodeSpoolFs, prefix: join(root, "spool-") });
});

afterEach(async () => {
  await spool.dispose();
  await rm(root, { recursive: true, force: true });
});

function parse(text: string): BatchPayload {
  return JSON.parse(text) as BatchPayload;
}

describe("BatchSession.run", () => {
  it("sends frames in order, one at a time, and returns verbatim responses", async () => {
    const transport = new FakeTransport(async (frame) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return success(frame, { echo: frame.method, extra: { kept: [1, "two"] } });
    });
    const session = new BatchSession({ transport, spool });
    const result = await session.run({
      frames: [{ method: "a.one" }, { method: "a.two", params: { x: 1 } }, { method: "a.three" }],
    });
    expect(transport.sent.map((f) => f.method)).toEqual(["a.one", "a.two", "a.three"]);
    expect(transport.inFlightAtSend).toEqual([0, 0, 0]);
    const payload = parse(result.text);
    expect(payload.frames).toEqual([
      {
        id: 1,
        method: "a.one",
        status: "ok",
        response: { type: "success", id: 1, result: { echo: "a.one", extra: { kept: [1, "two"] } } },
      },
      {
        id: 2,
        method: "a.two",
        status: "ok",
        response: { type: "success", id: 2, result: { echo: "a.two", extra: { kept: [1, "two"] } } },
      },
      {
        id: 3,
        method: "a.three",
        status: "ok",
        response: { type: "success", id: 3, result: { echo: "a.three", extra: { kept: [1, "two"] } } },
      },
    ]);
    expect(result.counts).toEqual({ ok: 3, failed: 0, skipped: 0, waitTimedOut: false });
  });

  it("passes a reference from an earlier frame into a later one", async () => {
    const transport = new FakeTransport((frame) =>
      frame.method === "browsingContext.getTree"
        ? success(frame, { contexts: [{ context: "CTX" }] })
        : success(frame, { got: frame.params }),
    );
    const session = new BatchSession({ transport, spool });
    await session.run({
      frames: [
        { id: 10, method: "browsingContext.getTree" },
        {
          method: "script.evaluate",
          params: {
            target: { context: "{{10.result.contexts.0.context}}" },
            expression: "'{{10.result.contexts.0.context}}'",
          },
        },
      ],
    });
    expect(transport.sent[1]?.params).toEqual({ target: { context: "CTX" }, expression: "'CTX'" });
  });

  it("resolves references to answered frames while the frame before is in flight, with the same result", async () => {
    // Each answer echoes a counter, so a reference resolved against the wrong answer would show.
    let answered = 0;
    const transport = new FakeTransport(async (frame) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      answered += 1;
      return success(frame, { n: answered, params: frame.params });
    });
    const session = new BatchSession({ transport, spool });
    const frameWith = (id: number, x: string) => ({ id, method: "e.v", params: { x } });
    const result = await session.run({
      frames: [
        frameWith(1, "plain"),
        frameWith(2, "{{1.result.n}}"), // reaches the frame in flight: resolved in its turn
        frameWith(3, "{{1.result.n}}-{{2.result.n}}"), // frame 2 is in flight while 3 could go ahead
        frameWith(4, "{{1.result.n}}"), // only reaches answered frames: resolved ahead
        { id: 5, method: "" }, // resolved ahead or not, the frame's own fault is reported
        frameWith(6, "{{1.result.n}}"),
      ],
    });
    expect(transport.sent.map((f) => f.params.x)).toEqual(["plain", 1, "1-2", 1]);
    const payload = parse(result.text);
    expect(payload.frames[4]).toMatchObject({ id: 5, status: "error", error: { kind: "invalid-frame" } });
    expect(payload.frames[5]).toMatchObject({ id: 6, status: "skipped" });
    // The skipped frame's id was never claimed: a later call may use it.
    expect(session.ledger.has(6)).toBe(false);
  });

  it("assigns missing ids around explicit ones and never reuses an id, also after a timeout", async () => {
    const transport = new FakeTransport((frame) =>
      frame.method === "slow.command" ? "hang" : success(frame, {}),
    );
    const session = new BatchSession({ transport, spool });
    await session.run({ frames: [{ method: "x.a" }, { id: 1, method: "x.b" }, { method: "x.c" }] });
    expect(transport.sent.map((f) => f.id)).toEqual([2, 1, 3]);

    const timedOut = parse(
      (await session.run({ frames: [{ id: 50, method: "slow.command" }], frameTimeoutMs: 20 })).text,
    );
    expect(timedOut.frames[0]).toMatchObject({ id: 50, status: "error", error: { kind: "timeout" } });

    const reused = await session.run({ frames: [{ id: 50, method: "x.d" }, { method: "x.e" }] });
    const payload = parse(reused.text);
    expect(payload.frames[0]).toMatchObject({ id: null, status: "error", error: { kind: "id-reused" } });
    expect((payload.frames[0] as { error: { message: string } }).error.message).toContain(
      "Frame id 50 was already used",
    );
    expect(payload.frames[1]).toMatchObject({ status: "skipped" });
    expect(transport.sent.map((f) => f.id)).toEqual([2, 1, 3, 50]);
    expect(reused.counts).toEqual({ ok: 0, failed: 1, skipped: 1, waitTimedOut: false });
  });

  it("stops at the first failed frame and reports the rest as skipped, unsent", async () => {
    const transport = new FakeTransport((frame) =>
      frame.method === "bad.command"
        ? errorFrame(frame, "unknown command", "nope")
        : success(frame, { ok: true }),
    );
    const session = new BatchSession({ transport, spool });
    const result = await session.run({
      frames: [
        { method: "good.one" },
        { method: "bad.command" },
        { method: "good.two" },
        { method: "good.three" },
      ],
      wait: { methods: ["log.entryAdded"], timeoutMs: 50 },
    });
    const payload = parse(result.text);
    expect(payload.frames[1]).toEqual({
      id: 2,
      method: "bad.command",
      status: "error",
      response: { type: "error", id: 2, error: "unknown command", message: "nope" },
    });
    expect(payload.frames.slice(2).map((f) => f.status)).toEqual(["skipped", "skipped"]);
    expect(payload.wait).toMatchObject({ status: "skipped", missing: ["log.entryAdded"] });
    expect(transport.sent.map((f) => f.method)).toEqual(["good.one", "bad.command"]);
    expect(result.counts).toEqual({ ok: 1, failed: 1, skipped: 2, waitTimedOut: false });
  });

  it("reports a bad reference as an error of that frame without sending it", async () => {
    const transport = new FakeTransport();
    const session = new BatchSession({ transport, spool });
    const payload = parse(
      (
        await session.run({
          frames: [{ method: "a.b" }, { method: "c.d", params: { x: "{{1.result.missing}}" } }],
        })
      ).text,
    );
    expect(payload.frames[1]).toMatchObject({ id: 2, status: "error", error: { kind: "reference" } });
    expect(transport.sent).toHaveLength(1);
  });

  it("refuses 65 frames, an empty batch and a bad wait before sending anything", async () => {
    const transport = new FakeTransport();
    const session = new BatchSession({ transport, spool });
    const frames = Array.from({ length: 65 }, () => ({ method: "x.y" }));
    await expect(session.run({ frames })).rejects.toThrow(BatchInputError);
    await expect(session.run({ frames })).rejects.toThrow("at most 64 frames; this one has 65");
    await expect(session.run({ frames: [] })).rejects.toThrow(BatchInputError);
    await expect(
      session.run({
        frames: [{ method: "x" }],
        wait: { methods: Array(9).fill("log.entryAdded"), timeoutMs: 10 },
      }),
    ).rejects.toThrow("between 1 and 8");
    expect(transport.sent).toHaveLength(0);
    const ok = await session.run({ frames: Array.from({ length: 64 }, () => ({ method: "x.y" })) });
    expect(ok.counts.ok).toBe(64);
  });

  it("refuses a request frame over 1 MiB of UTF-8", async () => {
    const transport = new FakeTransport();
    const session = new BatchSession({ transport, spool });
    // 'é' is two bytes in UTF-8: 600k of them are 1.2 MB although the string has 600k chars.
    const payload = parse(
      (
        await session.run({
          frames: [{ method: "script.evaluate", params: { expression: "é".repeat(600_000) } }],
        })
      ).text,
    );
    expect(payload.frames[0]).toMatchObject({ status: "error", error: { kind: "request-too-large" } });
    expect(transport.sent).toHaveLength(0);
  });

  it("sends a frame whose size bound passes 1 MiB when its real size does not", async () => {
    const transport = new FakeTransport();
    const session = new BatchSession({ transport, spool });
    // 300k ASCII characters: 300 KB of JSON, although each could take up to 6 bytes escaped.
    const expression = "a".repeat(300_000);
    const result = await session.run({ frames: [{ method: "script.evaluate", params: { expression } }] });
    expect(result.counts.ok).toBe(1);
    expect(transport.sent[0]?.params.expression).toBe(expression);
  });

  it("takes response texts and sizes from the transport when it has them, and stays exact", async () => {
    const texts = new WeakMap<object, string>();
    class WireTransport extends FakeTransport {
      override async sendFrame(
        frame: Parameters<FakeTransport["sendFrame"]>[0],
        options: Parameters<FakeTransport["sendFrame"]>[1],
      ) {
        const response = await super.sendFrame(frame, options);
        texts.set(response, JSON.stringify(response));
        return response;
      }
      responseText(response: object): string | undefined {
        return texts.get(response);
      }
      responseBytes(response: object): number | undefined {
        const text = texts.get(response);
        return text === undefined ? undefined : Buffer.byteLength(text, "utf8");
      }
    }
    const transport = new WireTransport((frame) =>
      success(frame, { text: `é ✓ \ud83d\ude00 ${frame.method}`, big: "x".repeat(50_000) }),
    );
    const session = new BatchSession({ transport, spool });
    const result = await session.run({
      frames: [{ method: "a.b" }, { method: "c.d", params: { t: "{{1.result.text}}" } }],
    });
    expect(result.counts.ok).toBe(2);
    expect(result.bytes).toBe(Buffer.byteLength(result.text, "utf8"));
    expect(JSON.parse(result.text)).toEqual(JSON.parse(JSON.stringify(result.payload)));
    expect(transport.sent[1]?.params.t).toBe("é ✓ \ud83d\ude00 a.b");
  });

  it("spools a large success to a complete file and keeps it usable by references", async () => {
    const big = "A".repeat(300 * 1024);
    const transport = new FakeTransport((frame) =>
      frame.method === "browsingContext.captureScreenshot"
        ? success(frame, { data: big })
        : success(frame, { got: frame.params }),
    );
    const session = new BatchSession({ transport, spool, spoolPrefix: "b1-" });
    const result = await session.run({
      frames: [
        { method: "browsingContext.captureScreenshot" },
        { method: "script.evaluate", params: { expression: "'{{1.result.data}}'.length" } },
      ],
    });
    const payload = parse(result.text);
    const first = payload.frames[0] as { status: string; spooled: { path: string; bytes: number } };
    expect(first.status).toBe("ok");
    expect(first.spooled.path).toMatch(/b1-frame-1\.json$/);
    const onDisk = JSON.parse(await readFile(first.spooled.path, "utf8"));
    expect(onDisk).toEqual({ type: "success", id: 1, result: { data: big } });
    expect(first.spooled.bytes).toBe((await stat(first.spooled.path)).size);
    expect(String(transport.sent[1]?.params.expression).length).toBe(big.length + 9);
    expect(result.bytes).toBeLessThan(64 * 1024);
  });

  it("spools once the call's inline total would pass 896 KiB", async () => {
    const chunk = "B".repeat(200 * 1024);
    const transport = new FakeTransport((frame) => success(frame, { chunk }));
    const session = new BatchSession({ transport, spool });
    const result = await session.run({ frames: Array.from({ length: 6 }, () => ({ method: "x.y" })) });
    const payload = parse(result.text);
    const kinds = payload.frames.map((f) => ("spooled" in f ? "spooled" : "inline"));
    expect(kinds).toEqual(["inline", "inline", "inline", "inline", "spooled", "spooled"]);
    expect(result.bytes).toBeLessThanOrEqual(1024 * 1024);
  });

  it("makes a failed spool write a frame error and never points at a file", async () => {
    const failing = new SpoolStore({
      fs: { ...nodeSpoolFs, writeFile: async () => Promise.reject(new Error("disk full")) },
      prefix: join(root, "failing-"),
    });
    const transport = new FakeTransport((frame) => success(frame, { data: "C".repeat(300 * 1024) }));
    const session = new BatchSession({ transport, spool: failing });
    const result = await session.run({
      frames: [{ method: "big.one" }, { method: "after", params: { d: "{{1.result.data}}" } }],
    });
    const payload = parse(result.text);
    expect(payload.frames[0]).toMatchObject({ id: 1, status: "error", error: { kind: "spool" } });
    expect((payload.frames[0] as { error: { message: string } }).error.message).toContain("disk full");
    expect(payload.frames[1]).toMatchObject({ status: "skipped" });
    const dir = await failing.directory();
    expect(dir && (await readdir(dir))).toEqual([]);
    await failing.dispose();
  });

  it("waits for events of this call only, consuming each once, filtered by context", async () => {
    const transport = new FakeTransport((frame) => {
      if (frame.method === "browsingContext.navigate") {
        setTimeout(() => {
          transport.emit("browsingContext.load", { context: "OTHER", url: "x" });
          transport.emit("browsingContext.load", { context: "CTX", url: "a" });
          transport.emit("log.entryAdded", { text: "one", source: { context: "CTX" } });
        }, 5);
      }
      return success(frame, {});
    });
    const session = new BatchSession({ transport, spool });
    transport.emit("browsingContext.load", { context: "CTX", url: "before-the-call" });
    const result = await session.run({
      frames: [{ method: "browsingContext.navigate", params: { context: "CTX" } }],
      wait: { methods: ["browsingContext.load"], context: "CTX", timeoutMs: 1000 },
    });
    const payload = parse(result.text);
    expect(payload.wait?.status).toBe("matched");
    const matched = (payload.wait as unknown as { matched: { params: { url: string } }[] }).matched;
    expect(matched.map((m) => m.params.url)).toEqual(["a"]);
    // Events not shown in the wait are listed once, including the one from before the call.
    expect(payload.events.map((e) => [e.method, e.params.url ?? e.params.text])).toEqual([
      ["browsingContext.load", "before-the-call"],
      ["browsingContext.load", "x"],
      ["log.entryAdded", "one"],
    ]);

    const twice = await session.run({
      frames: [{ method: "noop" }],
      wait: { methods: ["log.entryAdded", "log.entryAdded"], timeoutMs: 60 },
    });
    const second = parse(twice.text);
    expect(second.wait).toMatchObject({
      status: "timeout",
      missing: ["log.entryAdded", "log.entryAdded"],
      timeoutMs: 60,
    });
    expect(twice.counts.waitTimedOut).toBe(true);
  });

  it("needs two events for a method listed twice", async () => {
    const transport = new FakeTransport((frame) => {
      setTimeout(() => {
        transport.emit("log.entryAdded", { n: 1 });
        transport.emit("log.entryAdded", { n: 2 });
      }, 1);
      return success(frame, {});
    });
    const session = new BatchSession({ transport, spool });
    const payload = parse(
      (
        await session.run({
          frames: [{ method: "go" }],
          wait: { methods: ["log.entryAdded", "log.entryAdded"], timeoutMs: 1000 },
        })
      ).text,
    );
    expect(payload.wait).toMatchObject({ status: "matched" });
    expect(
      (payload.wait as unknown as { matched: { params: { n: number } }[] }).matched.map((m) => m.params.n),
    ).toEqual([1, 2]);
  });

  it("skips the rest of the batch when aborted mid-frame", async () => {
    const controller = new AbortController();
    const transport = new FakeTransport(() => "hang");
    const session = new BatchSession({ transport, spool });
    setTimeout(() => controller.abort(), 10);
    const payload = parse(
      (
        await session.run({
          frames: [{ method: "a" }, { method: "b" }],
          signal: controller.signal,
          frameTimeoutMs: 10_000,
        })
      ).text,
    );
    expect(payload.frames.map((f) => f.status)).toEqual(["error", "skipped"]);
    expect(payload.frames[0]).toMatchObject({ error: { kind: "aborted" } });
  });

  it("stops listening for events when disposed", () => {
    const transport = new FakeTransport();
    const session = new BatchSession({ transport, spool });
    expect(transport.listenerCount).toBe(1);
    session.dispose();
    expect(transport.listenerCount).toBe(0);
  });
});
