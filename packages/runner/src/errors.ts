/**
 * Typed errors of the runner, each mapped to one CLI exit code.
 *
 * Invariant: every error a user can cause (bad flags, no Firefox, no model) is one of these,
 * and its message says what happened and what to do next; the CLI prints the message alone
 * (no stack) and exits with the code below.
 */

/** Exit codes of the `webbrain` CLI (public: scripts branch on them). */
export const EXIT_DONE = 0;
export const EXIT_NOT_FINISHED = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNAVAILABLE = 3;

export type ExitCode =
  | typeof EXIT_DONE
  | typeof EXIT_NOT_FINISHED
  | typeof EXIT_USAGE
  | typeof EXIT_UNAVAILABLE;

/** The command line is wrong: unknown flag, missing argument, bad value. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  readonly exitCode = EXIT_USAGE;
}

/** Firefox could not be launched or reached, or it went away while we used it. */
export class BrowserUnavailableError extends Error {
  override readonly name = "BrowserUnavailableError";
  readonly exitCode = EXIT_UNAVAILABLE;
}

/** No model answers at the configured endpoint (connection refused, DNS, 404 on the API). */
export class ModelUnavailableError extends Error {
  override readonly name = "ModelUnavailableError";
  readonly exitCode = EXIT_UNAVAILABLE;
}

/** The command ran but could not finish: a page did not load, the agent gave up, Ctrl-C. */
export class TaskFailedError extends Error {
  override readonly name = "TaskFailedError";
  readonly exitCode = EXIT_NOT_FINISHED;
}

/** The exit code for an error thrown out of a command; unknown errors count as "not finished". */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError) return EXIT_USAGE;
  if (error instanceof BrowserUnavailableError || error instanceof ModelUnavailableError) {
    return EXIT_UNAVAILABLE;
  }
  return EXIT_NOT_FINISHED;
}
