/**
 * Stop inside the runner: the run's AbortSignal (BrowserPort's PortCallOptions) ends the browser
 * work, not only the wait for it. BiDi commands take the signal themselves (the client abandons
 * them); what the runner does between commands (plan rounds, pauses, polling, network waits)
 * checks it here; the race of a wait against Stop is the agent's `raceAbort`, with this error.
 *
 * Invariant: a stopped action rejects with BidiAbortError (code "aborted"), the same error an
 * abandoned BiDi command rejects with, so callers test one code for Stop.
 */
import { raceAbort } from "@webbrain/agent";
import { BidiAbortError, CLIENT_ERROR_CODES } from "@webbrain/bidi";

export function stoppedError(what: string, signal: AbortSignal): BidiAbortError {
  const reason: unknown = signal.reason;
  const detail = reason instanceof Error ? reason.message : reason === undefined ? "" : String(reason);
  return new BidiAbortError(
    what,
    CLIENT_ERROR_CODES.aborted,
    `${what}: stopped by the caller${detail ? ` (${detail})` : ""}; nothing more was done in the page.`,
  );
}

/** Throws the Stop error when the signal has fired. */
export function throwIfStopped(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw stoppedError(what, signal);
}

/** Waits `ms`, or rejects with the Stop error as soon as the signal fires. */
export function sleepUnlessStopped(ms: number, signal: AbortSignal | undefined, what: string): Promise<void> {
  if (!signal) return new Promise((resolve) => setTimeout(resolve, ms));
  if (signal.aborted) return Promise.reject(stoppedError(what, signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(stoppedError(what, signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** `work`, or the Stop error as soon as the signal fires (the work itself is left to finish). */
export function unlessStopped<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  what: string,
): Promise<T> {
  return raceAbort(work, signal, (stopped) => stoppedError(what, stopped));
}
