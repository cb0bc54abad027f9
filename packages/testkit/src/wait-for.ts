/**
 * waitFor: poll a condition until it yields a truthy value, instead of sleeping a fixed time.
 *
 * Invariants: the probe runs at once, then every `intervalMs` (never overlapping itself); the
 * promise settles within about `timeoutMs` with the first truthy value, or with WaitForTimeoutError
 * carrying `message` and the probe's last thrown error (a probe that throws is retried).
 */

export interface WaitForOptions {
  /** Give up after this long. */
  timeoutMs?: number;
  /** Pause between probes. */
  intervalMs?: number;
  /** Says what was awaited, for the timeout error. */
  message?: string;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 10_000;
export const DEFAULT_WAIT_INTERVAL_MS = 25;

export class WaitForTimeoutError extends Error {
  override name = "WaitForTimeoutError";
}

/** What a probe's answer is once waitFor returns it: never one of the falsy values it waits past. */
export type Truthy<T> = Exclude<T, false | 0 | "" | null | undefined>;

export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitForOptions = {}): Promise<Truthy<T>> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const intervalMs = opts.intervalMs ?? DEFAULT_WAIT_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let lastValue: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as Truthy<T>;
      lastValue = value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, left)));
  }
  const what = opts.message ?? "condition";
  const detail =
    lastError !== undefined
      ? `; last probe threw: ${lastError instanceof Error ? lastError.message : String(lastError)}`
      : `; last value: ${JSON.stringify(lastValue) ?? String(lastValue)}`;
  throw new WaitForTimeoutError(`waitFor: ${what} not met within ${timeoutMs} ms${detail}`, {
    cause: lastError,
  });
}

/**
 * waitFor for a probe that yields a value once ready (a process, a port, an element's box):
 * resolves with that value, typed as present.
 */
export async function until<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  opts: WaitForOptions = {},
): Promise<T> {
  // waitFor resolves only with a truthy value, so what comes back is never the absent kinds.
  return (await waitFor(probe, opts)) as T;
}
