import { describe, expect, it } from "vitest";
import { MAX_REQUEST_FRAME_BYTES } from "../src/batch/budgets.js";
import { jsonBytesBound } from "../src/batch/json-size-bound.js";

const LIMIT = MAX_REQUEST_FRAME_BYTES;

function exactBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}

describe("jsonBytesBound", () => {
  it("is never below the UTF-8 size of the JSON text", () => {
    const values: unknown[] = [
      "",
      "plain",
      'quote " backslash \\ slash /',
      "\u0000\u0001\u001f\b\f\n\r\t",
      "é ß ✓ 日本語",
      "emoji \ud83d\ude00 and a lone surrogate \ud800 \udc00",
      0,
      -0,
      -2.2250738585072014e-308,
      -1.7976931348623157e308,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      false,
      null,
      [],
      {},
      [undefined, () => 1, Symbol("s"), null],
      { skipped: undefined, f: () => 1, kept: 1 },
      { 'ké\n"y': { nested: [1, "two", { three: [true, null] }] } },
      { context: "CTX-1", target: { context: "CTX-1" }, expression: "document.title.length + 1" },
      Object.create({ inherited: "not serialized" }, { own: { value: "x", enumerable: true } }),
    ];
    for (const value of values) {
      expect(jsonBytesBound(value, LIMIT), JSON.stringify(value)).toBeGreaterThanOrEqual(exactBytes(value));
    }
  });

  it("stops past the limit and says so with a number over it", () => {
    const big = { items: Array.from({ length: 100_000 }, (_, i) => ({ text: `item ${i}` })) };
    const bound = jsonBytesBound(big, 1_000);
    expect(bound).toBeGreaterThan(1_000);
    // It stopped early: far below the bound of the whole value.
    expect(bound).toBeLessThan(jsonBytesBound(big, Number.POSITIVE_INFINITY));
  });

  it("gives up (Infinity) where it cannot bound: toJSON, bigint, deep nesting, cycles", () => {
    expect(jsonBytesBound({ when: new Date(0) }, LIMIT)).toBe(Number.POSITIVE_INFINITY);
    expect(jsonBytesBound({ n: 1n }, LIMIT)).toBe(Number.POSITIVE_INFINITY);
    let deep: unknown = "leaf";
    for (let i = 0; i < 100; i += 1) deep = [deep];
    expect(jsonBytesBound(deep, LIMIT)).toBe(Number.POSITIVE_INFINITY);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(jsonBytesBound(cycle, LIMIT)).toBe(Number.POSITIVE_INFINITY);
  });
});
