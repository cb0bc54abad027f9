/**
 * Stop for the add-on's port calls (PortCallOptions.signal): a call that is stopped rejects at
 * once with an error named "AbortError", and nothing more is sent to the page after that. A
 * message already delivered to a content script cannot be recalled; its late answer is dropped.
 * The race itself is the agent's `raceAbort`, with this error.
 */
import { raceAbort } from "@webbrain/agent";

export function stoppedError(): DOMException {
  return new DOMException("Stopped: the browser call was cancelled.", "AbortError");
}

export function isStopped(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === "AbortError";
}

export function throwIfStopped(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw stoppedError();
}

/** `work`'s outcome, or a rejection with AbortError as soon as `signal` fires. */
export function raceStop<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return raceAbort(work, signal, stoppedError);
}
