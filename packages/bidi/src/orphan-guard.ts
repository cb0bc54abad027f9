/**
 * Process-wide safety net: Firefox processes and temp profiles we started must not outlive this
 * Node process, whether it exits normally or on SIGINT/SIGTERM/SIGHUP.
 *
 * Invariants:
 * - Handlers are installed only while at least one launched Firefox is alive, so a process with
 *   no browser keeps its default signal behaviour.
 * - On a signal, cleanup is synchronous (SIGKILL to each Firefox process group, rmSync of each
 *   profile). If no one else listens for that signal we re-raise it so the process still dies
 *   with the conventional status; otherwise the host's own handler decides what happens next.
 * - SIGKILL of Node itself cannot be caught here; the per-launch watchdog (firefox-watchdog.ts)
 *   covers that case from outside.
 */
export interface GuardedResource {
  /** Synchronous, idempotent, must not throw. */
  killNowSync(): void;
}

const GUARDED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
type GuardedSignal = (typeof GUARDED_SIGNALS)[number];

const live = new Set<GuardedResource>();
let installed = false;

function cleanupAll(): void {
  for (const resource of live) {
    try {
      resource.killNowSync();
    } catch {
      // best effort: keep cleaning the others
    }
  }
  live.clear();
}

function onExit(): void {
  cleanupAll();
}

function onSignal(signal: GuardedSignal): void {
  cleanupAll();
  uninstall();
  if (process.listenerCount(signal) === 0) {
    process.kill(process.pid, signal);
  }
}

const signalHandlers = new Map<GuardedSignal, () => void>(
  GUARDED_SIGNALS.map((signal) => [signal, () => onSignal(signal)]),
);

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", onExit);
  for (const [signal, handler] of signalHandlers) process.on(signal, handler);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.removeListener("exit", onExit);
  for (const [signal, handler] of signalHandlers) process.removeListener(signal, handler);
}

/** Registers a live resource; returns the function that unregisters it. */
export function guardResource(resource: GuardedResource): () => void {
  live.add(resource);
  install();
  return () => {
    live.delete(resource);
    if (live.size === 0) uninstall();
  };
}
