/**
 * A watchdog that Firefox cannot outlive us without: a tiny `/bin/sh` process holding the read end
 * of a pipe whose write end only this Node process has. However Node ends (`kill -9` included,
 * which no handler sees) the kernel closes that end; the watchdog reads EOF, SIGKILLs Firefox's
 * process group and removes the temp profile. Node has no prctl(PR_SET_PDEATHSIG), and a pipe's
 * EOF reaches the watchdog whatever killed us.
 *
 * Invariants:
 * - The watchdog runs in its own session (detached): a terminal's Ctrl-C or hang-up, or a kill
 *   of our process group, does not take it down with us; it ignores SIGINT and SIGHUP too.
 * - It never keeps Node's event loop alive (child and pipe unref'd), and Node never writes to
 *   the pipe: only EOF wakes it.
 * - On an orderly end we disarm it (SIGKILL to the watchdog alone) after Firefox is gone, so it
 *   never signals a process group id that the system may have handed out again.
 * - It removes only the temp profile it was given; a kept profile (`--profile`) is never passed.
 * - Failing to start it is not fatal: the orphan guard still covers every death but SIGKILL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";

/** `$1`: Firefox's process group id; `$2`: the temp profile to remove, or empty. */
const WATCHDOG_SCRIPT = [
  'trap "" INT HUP',
  "while read -r _; do :; done",
  'kill -s KILL -- "-$1" 2>/dev/null',
  'if [ -n "$2" ]; then rm -rf -- "$2"; fi',
].join("\n");
/** Shown as $0 in `ps`, so the process says what it is. */
const WATCHDOG_NAME = "webbrain-firefox-watchdog";
const SHELL = "/bin/sh";

export interface FirefoxWatchdog {
  /** The watchdog's pid (undefined when it could not start). */
  readonly pid: number | undefined;
  /** Stops the watchdog without it acting; synchronous, idempotent, never throws. */
  disarm(): void;
}

/** Starts a watchdog for the process group `firefoxPgid`; `tempProfileDir` is removed with it. */
export function startFirefoxWatchdog(
  firefoxPgid: number,
  tempProfileDir: string | undefined,
): FirefoxWatchdog {
  let child: ChildProcess;
  try {
    child = spawn(SHELL, ["-c", WATCHDOG_SCRIPT, WATCHDOG_NAME, String(firefoxPgid), tempProfileDir ?? ""], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
  } catch {
    return { pid: undefined, disarm: () => {} };
  }
  child.on("error", () => {}); // no /bin/sh: the orphan guard alone remains
  child.stdin?.on("error", () => {}); // EPIPE once it is gone
  child.unref();
  (child.stdin as Socket | null)?.unref();
  let disarmed = false;
  return {
    pid: child.pid,
    disarm: () => {
      if (disarmed) return;
      disarmed = true;
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}
