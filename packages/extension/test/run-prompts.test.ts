/**
 * RunPrompts without Firefox: what one run asks the person, as journal events, and how Stop and
 * a scheduled run's bounded wait answer for a person who is not there. (run-manager.test.ts and
 * sidebar.test.ts cover the same prompts through the add-on's background page and panel.)
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { type BoundedWait, RunPrompts } from "../src/background/run-prompts.js";
import type { RunEvent } from "../src/shared/run-events.js";

function promptsOfARun() {
  const events: RunEvent[] = [];
  const stop = new AbortController();
  let counter = 0;
  const prompts = new RunPrompts({
    emit: (event) => events.push(event),
    signal: stop.signal,
    newPromptId: () => `prompt-${++counter}`,
  });
  const opened = () => events.flatMap((event) => (event.kind === "prompt" ? [event.prompt] : []));
  return { prompts, events, stop, opened };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("RunPrompts", () => {
  it("journals a plan prompt and resolves it with the person's choice, closing it once", async () => {
    const { prompts, events, opened } = promptsOfARun();
    const decision = prompts.plan({ goal: "Order a lamp", steps: [{ action: "open the shop" }], risks: [] });
    const [prompt] = opened();
    expect(prompt).toMatchObject({ promptId: "prompt-1", kind: "plan" });
    expect(prompt?.choices.map((choice) => choice.id)).toEqual(["approve", "reject"]);

    expect(prompts.answer("prompt-1", "approve")).toBe(true);
    await expect(decision).resolves.toEqual({ approved: true });
    expect(events.at(-1)).toEqual({ kind: "prompt_closed", promptId: "prompt-1" });
    expect(prompts.answer("prompt-1", "approve")).toBe(false); // answered already: nothing open
  });

  it("on Stop answers every open prompt with its refusal, and refuses later ones unasked", async () => {
    const { prompts, stop, opened } = promptsOfARun();
    const permission = prompts.permission({
      capability: "interact",
      origin: "https://shop.example",
      tool: "click_ax",
      detail: "click_ax ref 12",
    });
    const takeOver = prompts.takeOver("Log in, please.", undefined);
    const plan = prompts.plan({ goal: "Pay", steps: [], risks: ["pays"] });
    expect(opened()).toHaveLength(3);

    stop.abort();
    prompts.refuseAll();
    await expect(permission).resolves.toBe("deny");
    await expect(takeOver).rejects.toMatchObject({ name: "AbortError" });
    await expect(plan).resolves.toEqual({ approved: false });

    await expect(prompts.browserPermission("history")).resolves.toBe(false);
    expect(opened()).toHaveLength(3); // the late question was shown to nobody
  });

  it("gives a scheduled run's take-over up when nobody came within its bound", async () => {
    vi.useFakeTimers();
    const { prompts, opened } = promptsOfARun();
    const said: string[] = [];
    const bound: BoundedWait = {
      waitMs: 60_000,
      notify: (reason) => said.push(`notify: ${reason}`),
      clear: () => said.push("clear"),
      giveUp: (reason) => {
        said.push(`give up: ${reason}`);
        prompts.refuseAll(); // as RunManager.stop does
      },
    };
    const takeOver = prompts.takeOver("  Log in to the bank.  ", bound);
    const settled = expect(takeOver).rejects.toMatchObject({ name: "AbortError" });
    expect(opened()[0]).toMatchObject({ kind: "takeover", body: "Log in to the bank." });
    expect(said).toEqual(["notify: Log in to the bank."]);

    await vi.advanceTimersByTimeAsync(60_000);
    await settled;
    expect(said).toEqual(["notify: Log in to the bank.", "give up: Log in to the bank.", "clear"]);
  });

  it("passes the person's note on when they take over and press Continue", async () => {
    const { prompts, opened } = promptsOfARun();
    const takeOver = prompts.takeOver("", undefined);
    const [prompt] = opened();
    expect(prompts.answer(prompt!.promptId, "continue", "  Logged in.  ")).toBe(true);
    await expect(takeOver).resolves.toEqual({ resumed: true, said: "Logged in." });
  });
});
