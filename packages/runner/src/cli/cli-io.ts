/**
 * The process surface a command touches, injectable so commands run in-process in tests.
 * Commands never reach for `process` directly.
 */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: Record<string, string | undefined>;
  /** Whether stderr is a terminal (spinner, prompts) and stdin can answer questions. */
  interactive: boolean;
  /** Fires when the user asks to stop (Ctrl-C); commands close Firefox and exit cleanly. */
  signal: AbortSignal;
}

export function processIo(signal: AbortSignal): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    interactive: Boolean(process.stderr.isTTY && process.stdin.isTTY),
    signal,
  };
}
