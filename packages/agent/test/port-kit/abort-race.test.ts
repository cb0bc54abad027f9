/**
 * raceAbort, the one race of a wait against Stop that the loop and both ports use: the work's
 * outcome, or the caller's Stop error at once, the work left to finish.
 */
import { describe, expect, it } from "vitest";
import { AgentError, raceAbort } from "../../src/index.js";

class PortStop extends Error {}

describe("raceAbort", () => {
  it("is the work itself without a signal, and its outcome when Stop never comes", async () => {
    const work = Promise.resolve(1);
    expect(raceAbort(work, undefined)).toBe(work);
    const stop = new AbortController();
    expect(await raceAbort(Promise.resolve(2), stop.signal)).toBe(2);
    await expect(raceAbort(Promise.reject(new Error("page said no")), stop.signal)).rejects.toThrow(
      "page said no",
    );
  });

  it("rejects with the agent's aborted error by default, at once when already stopped", async () => {
    const stop = new AbortController();
    stop.abort();
    const error = await raceAbort(new Promise(() => {}), stop.signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).kind).toBe("aborted");
  });

  it("rejects with the caller's Stop error as soon as the signal fires, ignoring the late answer", async () => {
    const stop = new AbortController();
    let finish: (value: string) => void = () => {};
    const work = new Promise<string>((resolve) => (finish = resolve));
    const raced = raceAbort(work, stop.signal, () => new PortStop("stopped"));
    stop.abort();
    finish("late");
    await expect(raced).rejects.toBeInstanceOf(PortStop);
  });
});
