/**
 * How a page call's params are read (call-params.ts) by the schemas the bundle carries: what is
 * converted, what is refused and how the error says so, and that what comes out fits the
 * contract's schema as typebox reads it (so the action's tsc type, derived from that schema, holds).
 */
import { PAGE_CALL_SCHEMAS, PAGE_LAYER_ACTIONS } from "@webbrain/protocol";
import { Value } from "typebox/value";
import { describe, expect, it } from "vitest";
import { readCallParams } from "../src/call-params.js";
import { CALL_SCHEMAS } from "../src/call-schemas.js";

/** The schemas as the bundle carries them: JSON, without typebox's markers. */
const AS_BUNDLED = JSON.parse(JSON.stringify(CALL_SCHEMAS)) as typeof CALL_SCHEMAS;

function read(action: keyof typeof AS_BUNDLED, raw: unknown) {
  return readCallParams(action, AS_BUNDLED[action], raw);
}

function refusal(action: keyof typeof AS_BUNDLED, raw: unknown): string {
  try {
    read(action, raw);
  } catch (error) {
    expect(error).toMatchObject({ code: "bad_params" });
    return (error as Error).message;
  }
  throw new Error(`${action} accepted ${JSON.stringify(raw)}`);
}

describe("page call params", () => {
  it("has a schema for every page action", () => {
    expect(Object.keys(PAGE_CALL_SCHEMAS).sort()).toEqual([...PAGE_LAYER_ACTIONS].sort());
  });

  it("converts what models and ports send: numbers as text, refs as printed, true and false as text", () => {
    expect(read("click_ax", { ref_id: "[31]", mode: "resolve", ref_floor: "12" })).toEqual({
      ref_id: 31,
      mode: "resolve",
      ref_floor: 12,
    });
    expect(read("click_ax", { ref_id: " 7 " })).toEqual({ ref_id: 7 });
    expect(read("get_accessibility_tree", { diff: "true", max_chars: " 3000 ", filter: "all" })).toEqual({
      diff: true,
      max_chars: 3000,
      filter: "all",
    });
    expect(read("type_ax", { ref_id: 3, value: 42 })).toEqual({ ref_id: 3, value: "42" });
    expect(read("press_keys", { keys: ["Tab", "Enter"] })).toEqual({ keys: ["Tab", "Enter"] });
    expect(read("press_keys", { keys: "Control+a" })).toEqual({ keys: "Control+a" });
  });

  it("reads null, and an empty number, ref or choice, as left out; drops arguments no schema names", () => {
    expect(read("scroll", { amount: "", direction: "", ref_id: null, to: null, bogus: 1 })).toEqual({});
    expect(read("read_page", undefined)).toEqual({});
    expect(read("read_page", null)).toEqual({});
    // An empty string is a string: type_ax may clear a field.
    expect(read("type_ax", { ref_id: 3, value: "" })).toEqual({ ref_id: 3, value: "" });
  });

  it("takes what a contract accepts besides the offered arguments", () => {
    expect(read("scroll", { direction: "left" })).toEqual({ direction: "left" });
    expect(read("drag_drop", { source_ref_id: "[4]", target_ref_id: 5 })).toEqual({
      source_ref_id: 4,
      target_ref_id: 5,
    });
    expect(read("get_accessibility_tree", { nodes: true })).toEqual({ nodes: true });
    // Only a trusted-input tool takes `mode`.
    expect(read("read_page", { mode: "resolve" })).toEqual({});
  });

  it("refuses what does not fit, naming the argument and what it must be", () => {
    expect(refusal("click_ax", {})).toBe(
      'click_ax: "ref_id" is required: pass the number shown in [brackets] in the tree',
    );
    expect(refusal("click_ax", { ref_id: "Save" })).toBe(
      'click_ax: "ref_id" must be a ref number as printed in the tree (e.g. 31), got "Save"',
    );
    expect(refusal("type_ax", { ref_id: 1 })).toBe('type_ax: "value" is required');
    expect(refusal("type_ax", { ref_id: 1, value: { a: 1 } })).toBe(
      'type_ax: "value" must be a string, got object',
    );
    expect(refusal("read_page", { max_chars: "lots" })).toBe(
      'read_page: "max_chars" must be a number, got "lots"',
    );
    expect(refusal("get_accessibility_tree", { diff: "maybe" })).toBe(
      'get_accessibility_tree: "diff" must be true or false, got "maybe"',
    );
    expect(refusal("scroll", { direction: "sideways" })).toBe(
      'scroll: "direction" must be one of down, up, left, right; got "sideways"',
    );
    expect(refusal("press_keys", { keys: { a: 1 } })).toBe(
      'press_keys: "keys" must be a string or a list of strings, got {"a":1}',
    );
    expect(refusal("read_page", 5)).toBe("read_page: params must be a JSON object, got number");
    expect(refusal("read_page", [])).toBe("read_page: params must be a JSON object, got array");
  });

  it("answers params that fit the contract's schema as typebox reads it", () => {
    const samples: Record<string, unknown> = {
      ref_id: "[3]",
      composer: "4",
      from_ref_id: 5,
      max_chars: "500",
      amount: "10",
      limit: 3,
      text: "Save",
      value: 7,
      expected: "x",
      token: "t1",
      selector: "#a",
      keys: ["Tab"],
      diff: "false",
      submit: "true",
    };
    for (const action of PAGE_LAYER_ACTIONS) {
      const schema = PAGE_CALL_SCHEMAS[action];
      const raw = Object.fromEntries(
        Object.keys(schema.properties).flatMap((k) => (k in samples ? [[k, samples[k]]] : [])),
      );
      const out = read(action, raw);
      expect(Value.Check(schema, out), `${action} ${JSON.stringify(out)}`).toBe(true);
    }
  });
});
