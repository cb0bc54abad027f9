/**
 * launchFirefox: a Firefox process (firefox-process.ts) plus a BiDi session on it.
 *
 * Invariants:
 * - If anything after spawn fails, the process is killed and the profile removed before the
 *   error propagates: a failed launch leaves nothing behind.
 * - If Firefox dies while we hold it, the client is destroyed with a reason naming the exit, so
 *   every pending command fails at once with that reason, and the profile is removed.
 * - `close()` of a kept profile (`profileDir`) sends `browser.close` (which ends the session and
 *   quits), waits CLOSE_GRACE_MS for the process, then kills the group: Firefox writes cookies and
 *   logins to the profile as it quits, and they must survive. A temp profile is removed at close,
 *   so nothing Firefox would write on the way out is ever read: its group is killed at once
 *   (Firefox's orderly quit took 2-3 s here, on every launch of every test file). Idempotent.
 */
import type * as Bidi from "webdriver-bidi-protocol";
import { BidiClient } from "./client.js";
import { FirefoxLaunchError } from "./errors.js";
import { resolveFirefoxExecutable } from "./firefox-executable.js";
import {
  describeExit,
  type FirefoxExit,
  type FirefoxProcess,
  type StartFirefoxOptions,
  startFirefoxProcess,
} from "./firefox-process.js";
import { TEMP_PROFILE_PREFS } from "./firefox-profile.js";
import { ensureSeedProfile, firefoxBuildOf } from "./seed-profile.js";
import { type BidiSession, parseBidiEndpoint, startSession } from "./session.js";
import { type BidiTransport, connectWebSocketTransport } from "./transport.js";

export interface LaunchOptions extends StartFirefoxOptions {
  /**
   * Start a temp profile from this Firefox build's seed profile (seed-profile.ts), built at the
   * first launch that needs it. Default true; `WEBBRAIN_SEED_PROFILES=off` also turns it off.
   */
  seedProfile?: boolean;
  /** Capabilities for `session.new` (alwaysMatch). */
  capabilities?: Bidi.Session.CapabilityRequest;
  /** Default per-command timeout of the client, ms (0 = none). */
  defaultTimeoutMs?: number;
}

export interface FirefoxBrowser {
  client: BidiClient;
  /** Base endpoint, e.g. ws://127.0.0.1:41234. */
  wsEndpoint: string;
  pid: number;
  profileDir: string;
  sessionId: string;
  browserName: string;
  browserVersion: string;
  /**
   * Ends the session and Firefox: a kept profile's Firefox quits in order (killed after a grace
   * period); a temp profile's is killed at once and its profile removed.
   */
  close(): Promise<void>;
  /** Resolves once Firefox has exited and its profile is gone, however that happened. */
  readonly exited: Promise<void>;
}

/** How long Firefox gets to quit after browser.close before it is killed. */
export const CLOSE_GRACE_MS = 5_000;
/** How long browser.close may take to be acknowledged. */
const BROWSER_CLOSE_TIMEOUT_MS = 3_000;
/**
 * When the socket drops, how long to wait for the process exit notice so pending commands can be
 * told "Firefox exited (signal ...)" rather than a bare "socket closed (1006)".
 */
const EXIT_NOTICE_WAIT_MS = 250;

function crashReason(proc: FirefoxProcess, exit: FirefoxExit): Error {
  return new Error(
    `Firefox (pid ${proc.pid}) exited unexpectedly (${describeExit(exit)}); its session is gone`,
  );
}

/** Delays the transport's close notice briefly so a process death can name itself as the reason. */
function explainCloseByExit(transport: BidiTransport, proc: FirefoxProcess): BidiTransport {
  return {
    send: (text) => transport.send(text),
    onMessage: (handler) => transport.onMessage(handler),
    close: () => transport.close(),
    onClose: (handler) => {
      transport.onClose((socketReason) => {
        const byExit = proc.exited.then((exit) => crashReason(proc, exit));
        const byTimer = new Promise<Error>((r) =>
          setTimeout(() => r(socketReason), EXIT_NOTICE_WAIT_MS).unref(),
        );
        void Promise.race([byExit, byTimer]).then(handler);
      });
    },
  };
}

async function openSession(proc: FirefoxProcess, opts: LaunchOptions): Promise<BidiSession> {
  const transport = await connectWebSocketTransport(parseBidiEndpoint(proc.wsEndpoint).dialUrl);
  const client = new BidiClient(explainCloseByExit(transport, proc), {
    defaultTimeoutMs: opts.defaultTimeoutMs,
  });
  return startSession(client, { capabilities: opts.capabilities, closeBrowser: true });
}

/** The seed a temp-profile launch starts from, or undefined (seed-profile.ts says when). */
async function seedFor(opts: LaunchOptions): Promise<string | undefined> {
  if (opts.profileDir !== undefined || opts.seedProfile === false) return undefined;
  const env = opts.env ?? process.env;
  let executablePath: string;
  try {
    executablePath = resolveFirefoxExecutable(opts.executablePath, env);
  } catch {
    return undefined; // startFirefoxProcess reports it
  }
  const build = firefoxBuildOf(executablePath);
  if (!build) return undefined;
  return ensureSeedProfile(
    build,
    async (profileDir) => {
      // Safe Browsing off as in every temp profile: its lists would download into the seed.
      const warm = await launchFirefox({
        executablePath,
        env,
        profileDir,
        seedProfile: false,
        prefs: { ...TEMP_PROFILE_PREFS },
      });
      await warm.close();
    },
    env,
  );
}

export async function launchFirefox(opts: LaunchOptions = {}): Promise<FirefoxBrowser> {
  const seedProfileDir = await seedFor(opts);
  const proc = await startFirefoxProcess(seedProfileDir ? { ...opts, seedProfileDir } : opts);
  let session: BidiSession;
  try {
    session = await openSession(proc, opts);
  } catch (err) {
    const exitedFirst = proc.hasExited;
    proc.killGroup();
    await proc.dispose(0);
    throw new FirefoxLaunchError(
      `Firefox started (pid ${proc.pid}) but the BiDi session could not be opened at ${proc.wsEndpoint}` +
        `${exitedFirst ? " because Firefox exited" : ""}: ${(err as Error).message}`,
      proc.outputTail(),
    );
  }
  const { client } = session;

  let closing = false;
  const exited = proc.exited.then(async (exit) => {
    if (!closing) client.destroy(crashReason(proc, exit));
    await proc.dispose(0);
  });

  let closePromise: Promise<void> | undefined;
  const close = () => {
    closePromise ??= (async () => {
      closing = true;
      if (proc.temporaryProfile) {
        await client.close();
        await proc.dispose(0);
        await exited;
        return;
      }
      if (!proc.hasExited) {
        await client.send("browser.close", {}, { timeoutMs: BROWSER_CLOSE_TIMEOUT_MS }).catch(() => {
          // Socket dropped or Firefox is already quitting: the kill below covers it.
        });
      }
      await client.close();
      await proc.dispose(CLOSE_GRACE_MS);
      await exited;
    })();
    return closePromise;
  };

  return {
    client,
    wsEndpoint: proc.wsEndpoint,
    pid: proc.pid,
    profileDir: proc.profileDir,
    sessionId: session.sessionId ?? "",
    browserName: session.browserName,
    browserVersion: session.browserVersion,
    close,
    exited,
  };
}
