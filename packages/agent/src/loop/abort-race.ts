/**
 * Waiting that an abort can cut short. A browser call or a user prompt cannot always be
 * cancelled at its source (a page action already dispatched, an approval dialog), but the run
 * must stop at once when the user says stop: the run stops waiting and the late answer is
 * ignored. The agent loop and both ports race their waits here; each says what Stop rejects with
 * in its own realm (the agent an `aborted` AgentError, the runner a BiDi abort error, the add-on
 * an AbortError).
 */
import { AgentError } from "../errors.js";

function stoppedByUser(): AgentError {
  return new AgentError("aborted", "Stopped by the user.");
}

/**
 * Resolve or reject as `work` does, or reject with `stopError(signal)` as soon as `signal` fires (at
 * once if it already has). The work itself is left to finish; its late outcome is ignored.
 */
export function raceAbort<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  stopError: (signal: AbortSignal) => unknown = stoppedByUser,
): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(stopError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stopError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
