/**
 * Handing the browser to a person and getting it back: print what to do, wait for Enter.
 * Used by `webbrain login` (the first, headed login of a profile) and the pause_for_user tool
 * (`terminalPerson`, given to the BrowserPort of `webbrain run` when a person is at hand).
 *
 * Invariants:
 * - Resolves "resumed" on the first line read from `input` (Enter), "ended" when input closes
 *   (nobody can answer any more), "aborted" when the signal fires; it never hangs past those.
 * - Reads one line only and leaves the stream usable for later readers.
 */
import { createInterface } from "node:readline";
import type { PersonAnswer } from "@webbrain/agent";
import { stoppedError } from "../port/stop-signal.js";

export type PersonOutcome = "resumed" | "ended" | "aborted";

export interface PersonReply {
  outcome: PersonOutcome;
  /** The line the person typed before Enter, trimmed (empty unless "resumed"). */
  said: string;
}

export function waitForPerson(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  message: string,
  signal?: AbortSignal,
): Promise<PersonReply> {
  output.write(`\n${message}\nPress Enter here when done.\n`);
  return new Promise((resolve) => {
    const lines = createInterface({ input, terminal: false });
    const finish = (outcome: PersonOutcome, said = "") => {
      signal?.removeEventListener("abort", onAbort);
      lines.removeAllListeners();
      lines.close();
      resolve({ outcome, said: said.trim() });
    };
    const onAbort = () => finish("aborted");
    if (signal?.aborted) return finish("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
    lines.once("line", (line) => finish("resumed", line));
    lines.once("close", () => finish("ended"));
  });
}

/** Someone who can take over the browser now (BidiBrowserPortOptions.person). */
export interface PersonAtHand {
  /** Show `message` and wait for them; rejects with the stop error when `signal` fires. */
  pause(message: string, signal?: AbortSignal): Promise<PersonAnswer>;
}

/**
 * The person at the terminal of `webbrain run`: the model's message on `output` (stderr, so
 * stdout stays the answer's), their Enter on `input`. `beforeWait` clears a spinner first,
 * which would otherwise draw over what the person types.
 */
export function terminalPerson(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  beforeWait: () => void = () => {},
): PersonAtHand {
  return {
    pause: async (message, signal) => {
      beforeWait();
      const reply = await waitForPerson(
        input,
        output,
        `webbrain: the agent hands the browser to you:\n  ${message.trim() || "(no message)"}\n` +
          "Type a note for the agent if you like.",
        signal,
      );
      if (reply.outcome === "aborted" && signal) throw stoppedError("pause_for_user", signal);
      if (reply.outcome === "resumed") output.write("webbrain: resuming the run.\n");
      return { resumed: reply.outcome === "resumed", said: reply.said };
    },
  };
}
