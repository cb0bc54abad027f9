/**
 * Waiting that an abort can cut short. A browser call or a user prompt cannot always be
 * cancelled at its source (a page action already dispatched, an approval dialog), but the run
 * must stop at once when the user says stop: the run stops waiting and the late answer is
 * ignored.
 */
import { AgentError } from "../errors.js";

/** Resolve with `work`, or reject with an `aborted` AgentError as soon as `signal` fires. */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new AgentError("aborted", "Stopped by the user."));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AgentError("aborted", "Stopped by the user."));
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
