import { describe, expect, it } from "vitest";
import {
  ReferenceResolutionError,
  type ReferenceTarget,
  resolveReferences,
  resolveReferencesIfAnswered,
} from "../src/batch/references.js";
import type { JsonObject } from "../src/batch/types.js";

const targets = new Map<number, ReferenceTarget>([
  [
    1,
    {
      status: "ok",
      response: {
        type: "success",
        id: 1,
        result: {
          context: "ctx-1",
          count: 3,
          flag: false,
          nothing: null,
          list: [{ name: "a" }, { name: "b" }],
          obj: { x: 1 },
        },
      },
    },
  ],
  [2, { status: "failed" }],
]);

function resolve(params: JsonObject): JsonObject {
  return resolveReferences(params, targets);
}

describe("resolveReferences", () => {
  it("keeps the JSON type of a whole-value reference", () => {
    expect(
      resolve({
        s: "{{1.result.context}}",
        n: "{{1.result.count}}",
        b: "{{1.result.flag}}",
        z: "{{1.result.nothing}}",
        a: "{{1.result.list}}",
        o: "{{1.result.obj}}",
      }),
    ).toEqual({ s: "ctx-1", n: 3, b: false, z: null, a: [{ name: "a" }, { name: "b" }], o: { x: 1 } });
  });

  it("indexes arrays with numeric segments and walks nested params", () => {
    expect(
      resolve({ target: { context: "{{1.result.list.1.name}}" }, args: ["{{1.result.count}}"] }),
    ).toEqual({
      target: { context: "b" },
      args: [3],
    });
  });

  it("stringifies primitives embedded in a longer string", () => {
    expect(
      resolve({ expression: "f('{{1.result.context}}', {{1.result.count}}, {{1.result.flag}})" }),
    ).toEqual({
      expression: "f('ctx-1', 3, false)",
    });
  });

  it("turns {{{{...}}}} into a literal {{...}} without resolving it", () => {
    expect(resolve({ a: "{{{{1.result.context}}}}", b: "x {{{{9.result}}}} {{1.result.count}}" })).toEqual({
      a: "{{1.result.context}}",
      b: "x {{9.result}} 3",
    });
  });

  it.each([
    ["an array", "{{1.result.list}}"],
    ["an object", "{{1.result.obj}}"],
    ["null", "{{1.result.nothing}}"],
  ])("rejects %s embedded in a longer string", (kind, reference) => {
    expect(() => resolve({ e: `x ${reference}` })).toThrow(ReferenceResolutionError);
    expect(() => resolve({ e: `x ${reference}` })).toThrow(`points to ${kind}`);
  });

  it("names the problem for an unknown id, a failed frame and a missing path", () => {
    expect(() => resolve({ a: "{{7.result.x}}" })).toThrow(/frame id 7, which is not an earlier frame/);
    expect(() => resolve({ a: "{{2.result.x}}" })).toThrow(/frame 2, which failed/);
    expect(() => resolve({ a: "{{1.result.missing.deeper}}" })).toThrow(/no value at "result.missing"/);
    expect(() => resolve({ a: "{{1.result.list.5}}" })).toThrow(/no value at "result.list.5"/);
    expect(() => resolve({ a: "{{abc.result}}" })).toThrow(/does not start with a frame id/);
  });

  it("leaves keys, plain strings and non-strings alone and does not mutate its input", () => {
    const input: JsonObject = { "{{1.result.count}}": "plain", n: 5, t: true, nested: ["{ not a ref }"] };
    const copy = structuredClone(input);
    expect(resolve(input)).toEqual(copy);
    expect(input).toEqual(copy);
  });

  it("does not merge two references into one whole-value reference", () => {
    expect(resolve({ a: "{{1.result.context}}{{1.result.count}}" })).toEqual({ a: "ctx-13" });
  });
});

describe("resolveReferencesIfAnswered", () => {
  it("resolves as resolveReferences when every referenced frame answered", () => {
    const params: JsonObject = { c: "{{1.result.context}}", e: "n={{1.result.count}}", k: ["{{{{1.x}}}}"] };
    expect(resolveReferencesIfAnswered(params, targets)).toEqual(resolveReferences(params, targets));
  });

  it("answers undefined, without throwing, when a reference names a frame with no answer yet", () => {
    expect(resolveReferencesIfAnswered({ a: "{{7.result.x}}" }, targets)).toBeUndefined();
    expect(resolveReferencesIfAnswered({ a: ["ok", { b: "x {{7.result.x}} y" }] }, targets)).toBeUndefined();
    expect(
      resolveReferencesIfAnswered({ a: "{{1.result.context}}", b: "{{7.result.x}}" }, targets),
    ).toBeUndefined();
  });

  it("still throws for a failed frame or a missing path", () => {
    expect(() => resolveReferencesIfAnswered({ a: "{{2.result.x}}" }, targets)).toThrow(/which failed/);
    expect(() => resolveReferencesIfAnswered({ a: "{{1.result.missing}}" }, targets)).toThrow(/no value at/);
  });
});
