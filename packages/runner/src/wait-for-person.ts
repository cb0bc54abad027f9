/**
 * Handing the browser to a person and getting it back: print what to do, wait for Enter.
 * Used by `webbrain login` (the first, headed login of a profile) and the pause_for_user tool.
 *
 * Invariants:
 * - Resolves "resumed" on the first line read from `input` (Enter), "ended" when input closes
 *   (nobody can answer any more), "aborted" when the signal fires; it never hangs past those.
 * - Reads one line only and leaves the stream usable for later readers.
 */
import { createInterface } from "node:readline";

export type PersonOutcome = "resumed" | "ended" | "aborted";

export function waitForPerson(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  message: string,
  signal?: AbortSignal,
): Promise<PersonOutcome> {
  output.write(`\n${message}\nPress Enter here when done.\n`);
  return new Promise((resolve) => {
    const lines = createInterface({ input, terminal: false });
    const finish = (outcome: PersonOutcome) => {
      signal?.removeEventListener("abort", onAbort);
      lines.removeAllListeners();
      lines.close();
      resolve(outcome);
    };
    const onAbort = () => finish("aborted");
    if (signal?.aborted) return finish("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
    lines.once("line", () => finish("resumed"));
    lines.once("close", () => finish("ended"));
  });
}
