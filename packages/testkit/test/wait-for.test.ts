import { describe, expect, it } from "vitest";
import { WaitForTimeoutError, waitFor } from "../src/index.js";

describe("waitFor", () => {
  it("resolves with the first truthy value", async () => {
    let calls = 0;
    const value = await waitFor(
      () => {
        calls += 1;
        return calls >= 3 ? { calls } : null;
      },
      { intervalMs: 1 },
    );
    expect(value).toEqual({ calls: 3 });
  });

  it("retries probes that throw and supports async probes", async () => {
    let calls = 0;
    const value = await waitFor(
      async () => {
        calls += 1;
        if (calls < 2) throw new Error("not yet");
        return "ready";
      },
      { intervalMs: 1 },
    );
    expect(value).toBe("ready");
  });

  it("times out with the message and the last failure", async () => {
    const err = await waitFor(
      () => {
        throw new Error("element missing");
      },
      { timeoutMs: 50, intervalMs: 5, message: "the dialog to open" },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitForTimeoutError);
    expect((err as Error).message).toContain("the dialog to open not met within 50 ms");
    expect((err as Error).message).toContain("element missing");
  });
});
