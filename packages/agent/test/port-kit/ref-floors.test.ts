/**
 * RefFloors, the highest ref per tab that every page call carries as `ref_floor`, over a
 * scripted page call. (That the page layer numbers above it: page tree.test.ts; across
 * documents in real tabs: runner and add-on Firefox tests.)
 */
import { describe, expect, it } from "vitest";
import { RefFloors } from "../../src/index.js";

const shown = (lastRef: number) => ({ success: true, meta: { last_ref: lastRef } });

describe("RefFloors", () => {
  it("sends no floor before a tab has shown a ref, then the highest it has shown", async () => {
    const floors = new RefFloors<string>();
    const sent: Record<string, unknown>[] = [];
    const send = (answer: unknown) => async (params: Record<string, unknown>) => {
      sent.push(params);
      return answer;
    };
    await floors.call("tab", { filter: "all" }, send(shown(12)));
    await floors.call("tab", {}, send({ success: true }));
    await floors.call("other", {}, send(shown(3)));
    await floors.call("tab", { ref_id: 4 }, send(shown(7)));
    await floors.call("tab", {}, send(shown(0)));
    expect(sent).toEqual([
      { filter: "all" },
      { ref_floor: 12 },
      {},
      { ref_id: 4, ref_floor: 12 },
      { ref_floor: 12 },
    ]);
    expect(floors.floor("other")).toBe(3);
  });

  it("never lowers a floor: a slow call that began under a lower floor answers after a higher one", async () => {
    const floors = new RefFloors<number>();
    let answerSlow: (answer: unknown) => void = () => {};
    const slow = floors.call(1, {}, () => new Promise((resolve) => (answerSlow = resolve)));
    await floors.call(1, {}, async () => shown(50));
    answerSlow(shown(30));
    await slow;
    expect(floors.floor(1)).toBe(50);
  });

  it("notes nothing from a call that throws, ignores answers without a numeric last_ref, and forgets a tab", async () => {
    const floors = new RefFloors<number>();
    await expect(
      floors.call(1, {}, async () => {
        throw new Error("page gone");
      }),
    ).rejects.toThrow("page gone");
    floors.note(1, { meta: { last_ref: "9" } });
    floors.note(1, null);
    floors.note(1, [shown(9)]);
    expect(floors.floor(1)).toBeUndefined();
    floors.note(1, shown(9));
    expect(floors.floor(1)).toBe(9);
    floors.forget(1);
    expect(floors.floor(1)).toBeUndefined();
  });
});
