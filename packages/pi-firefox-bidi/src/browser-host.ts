/**
 * The one Firefox a Pi session drives: launched lazily, kept while its launch
 * options hold, closed on `/firefox close` and at session shutdown.
 *
 * Invariants:
 * - at most one browser at a time; concurrent `acquire` calls share one launch;
 * - launch options (headless, access) are fixed while the browser runs: a call
 *   that asks for different ones gets `LaunchOptionsConflictError` and nothing
 *   changes. Options a call leaves out mean "whatever is running";
 * - a browser that exits on its own is forgotten at once (its batch session
 *   stops recording), and the next call launches a fresh one with a fresh
 *   profile and a fresh frame-id ledger; the payload says so once;
 * - the spool store is not owned here: spool files survive `close`.
 */
import type { FirefoxBrowser } from "@webbrain/bidi";
import { BatchSession, clientTransport, type SpoolStore } from "@webbrain/bidi/batch";
import { type DebugLog, errorKind } from "./debug-log.js";

export type Access = "standard" | "system";

export interface LaunchChoice {
  headless: boolean;
  access: Access;
}

export const DEFAULT_LAUNCH: LaunchChoice = { headless: true, access: "standard" };

/**
 * Firefox 153 gates privileged ("chrome") contexts behind this command-line
 * flag (or the MOZ_REMOTE_ALLOW_SYSTEM_ACCESS env var); no pref enables it.
 */
export const SYSTEM_ACCESS_ARG = "--remote-allow-system-access";

export type BrowserLauncher = (options: {
  executablePath: string;
  headless: boolean;
  args: string[];
}) => Promise<FirefoxBrowser>;

export class LaunchOptionsConflictError extends Error {
  override readonly name = "LaunchOptionsConflictError";
}

export interface RunningBrowser {
  browser: FirefoxBrowser;
  batch: BatchSession;
  options: LaunchChoice;
  generation: number;
}

export class BrowserHost {
  #current: RunningBrowser | undefined;
  #launching: Promise<RunningBrowser> | undefined;
  #generation = 0;
  #unexpectedExit: string | undefined;

  constructor(
    private readonly launcher: BrowserLauncher,
    private readonly spool: SpoolStore,
    private readonly debug: DebugLog,
  ) {}

  get running(): RunningBrowser | undefined {
    return this.#current;
  }

  /** A note about a browser that died since the last call, handed out once. */
  takeExitNote(): string | undefined {
    const note = this.#unexpectedExit;
    this.#unexpectedExit = undefined;
    return note;
  }

  /**
   * The running browser when one runs (no await, the common case of a call), after the same
   * launch-option check as `acquire`; undefined when none runs or one is launching.
   */
  reuse(requested: Partial<LaunchChoice>): { running: RunningBrowser; launched: false } | undefined {
    const existing = this.#current;
    if (!existing) return undefined;
    checkLaunchOptions(requested, existing);
    return { running: existing, launched: false };
  }

  async acquire(
    requested: Partial<LaunchChoice>,
    executablePath: string,
  ): Promise<{ running: RunningBrowser; launched: boolean }> {
    const existing = this.#current ?? (this.#launching ? await this.#launching : undefined);
    if (existing) {
      checkLaunchOptions(requested, existing);
      return { running: existing, launched: false };
    }
    const options: LaunchChoice = { ...DEFAULT_LAUNCH, ...stripUndefined(requested) };
    this.#launching = this.#launch(options, executablePath);
    try {
      return { running: await this.#launching, launched: true };
    } finally {
      this.#launching = undefined;
    }
  }

  async #launch(options: LaunchChoice, executablePath: string): Promise<RunningBrowser> {
    const started = performance.now();
    let browser: FirefoxBrowser;
    try {
      browser = await this.launcher({
        executablePath,
        headless: options.headless,
        args: options.access === "system" ? [SYSTEM_ACCESS_ARG] : [],
      });
    } catch (error) {
      this.debug.record({
        span: "launch",
        outcome: "error",
        durationMs: elapsed(started),
        headless: options.headless,
        access: options.access,
        errorKind: errorKind(error),
      });
      throw error;
    }
    this.#generation += 1;
    const running: RunningBrowser = {
      browser,
      batch: new BatchSession({
        transport: clientTransport(browser.client),
        spool: this.spool,
        spoolPrefix: `browser${this.#generation}-`,
      }),
      options,
      generation: this.#generation,
    };
    this.#current = running;
    void browser.exited.then(() => {
      if (this.#current !== running) return;
      this.#current = undefined;
      running.batch.dispose();
      this.#unexpectedExit = `Firefox (pid ${browser.pid}) exited on its own after the previous call; this call launched a new browser with a fresh profile, so earlier contexts, sharedIds and subscriptions are gone.`;
    });
    this.debug.record({
      span: "launch",
      outcome: "ok",
      durationMs: elapsed(started),
      headless: options.headless,
      access: options.access,
      browserVersion: browser.browserVersion,
    });
    return running;
  }

  /** Closes the browser if one runs; true when one was closed. */
  async close(reason: string): Promise<boolean> {
    const running =
      this.#current ?? (this.#launching ? await this.#launching.catch(() => undefined) : undefined);
    if (!running) return false;
    this.#current = undefined;
    running.batch.dispose();
    const started = performance.now();
    try {
      await running.browser.close();
      this.debug.record({ span: "teardown", outcome: "ok", durationMs: elapsed(started), reason });
    } catch (error) {
      this.debug.record({
        span: "teardown",
        outcome: "error",
        durationMs: elapsed(started),
        reason,
        errorKind: errorKind(error),
      });
      throw error;
    }
    return true;
  }
}

/** Throws LaunchOptionsConflictError when the call asks for options the running browser lacks. */
function checkLaunchOptions(requested: Partial<LaunchChoice>, existing: RunningBrowser): void {
  const conflicts = (Object.keys(requested) as (keyof LaunchChoice)[]).filter(
    (key) => requested[key] !== undefined && requested[key] !== existing.options[key],
  );
  if (conflicts.length === 0) return;
  const asked = conflicts.map((key) => `${key}=${String(requested[key])}`).join(", ");
  const running = `headless=${existing.options.headless}, access=${existing.options.access}`;
  throw new LaunchOptionsConflictError(
    `Firefox is already running with ${running}; this call asked for ${asked}. Launch options cannot change while the browser runs: run /firefox close, then call firefox_bidi again with the new options.`,
  );
}

function stripUndefined(choice: Partial<LaunchChoice>): Partial<LaunchChoice> {
  const out: Partial<LaunchChoice> = {};
  if (choice.headless !== undefined) out.headless = choice.headless;
  if (choice.access !== undefined) out.access = choice.access;
  return out;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
