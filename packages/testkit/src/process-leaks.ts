/**
 * What a test file may change in its worker process and must put back: the suite runs files one
 * after another in the same worker (vitest `isolate: false`, vitest.config.ts), so whatever one
 * file leaves behind, the next file in that worker starts with. The order of files changes from
 * run to run (vitest sorts them by the durations it cached), so such a leak would fail some other
 * file, sometimes. This makes it fail the file that leaked, every time.
 *
 * Watched: the environment, the working folder, fake timers, the console and the process's
 * output streams (runMain swaps them), and the process listeners a live Firefox or a forgotten
 * server adds (the orphan guard listens for exit and signals while any launched Firefox lives).
 */

export interface ProcessState {
  env: Record<string, string | undefined>;
  cwd: string;
  fakeTimers: boolean;
  console: Record<string, unknown>;
  streams: { stdout: unknown; stderr: unknown };
  listeners: Record<string, number>;
}

/** The process events whose listeners a leaked browser, server or signal handler would keep. */
export const WATCHED_PROCESS_EVENTS = [
  "exit",
  "SIGINT",
  "SIGTERM",
  "SIGHUP",
  "uncaughtException",
  "unhandledRejection",
] as const;

/** The console methods code prints with: the guard watches them, and `runMain` captures them. */
export const CONSOLE_METHODS = ["log", "info", "debug", "warn", "error"] as const;
export type ConsoleMethod = (typeof CONSOLE_METHODS)[number];

export function processState(fakeTimers: boolean): ProcessState {
  return {
    env: { ...process.env },
    cwd: process.cwd(),
    fakeTimers,
    console: Object.fromEntries(CONSOLE_METHODS.map((name) => [name, console[name]])),
    streams: { stdout: process.stdout.write, stderr: process.stderr.write },
    listeners: Object.fromEntries(
      WATCHED_PROCESS_EVENTS.map((event) => [event, process.listenerCount(event)]),
    ),
  };
}

/** Each difference between two states, as a sentence that says what was left changed. */
export function leaksBetween(before: ProcessState, after: ProcessState): string[] {
  const leaks: string[] = [];
  const names = new Set([...Object.keys(before.env), ...Object.keys(after.env)]);
  for (const name of [...names].sort()) {
    if (before.env[name] === after.env[name]) continue;
    leaks.push(
      after.env[name] === undefined
        ? `process.env.${name} was deleted`
        : before.env[name] === undefined
          ? `process.env.${name} was set`
          : `process.env.${name} was changed`,
    );
  }
  if (before.cwd !== after.cwd) leaks.push(`the working folder is ${after.cwd}, not ${before.cwd}`);
  if (after.fakeTimers && !before.fakeTimers) leaks.push("fake timers are still on (vi.useRealTimers)");
  for (const name of CONSOLE_METHODS) {
    if (before.console[name] !== after.console[name]) leaks.push(`console.${name} was replaced`);
  }
  for (const stream of ["stdout", "stderr"] as const) {
    if (before.streams[stream] !== after.streams[stream]) leaks.push(`process.${stream}.write was replaced`);
  }
  for (const event of WATCHED_PROCESS_EVENTS) {
    const added = (after.listeners[event] ?? 0) - (before.listeners[event] ?? 0);
    if (added > 0) {
      leaks.push(
        `${added} more process "${event}" listener(s)${event === "exit" ? " (a Firefox still running? a browser.close() missed?)" : ""}`,
      );
    }
  }
  return leaks;
}
