/**
 * One Firefox per CLI test file, reached by each `webbrain` run through `--connect`, so a test
 * pays for a CLI start, not for a Firefox launch too. Tests of launching itself (launch errors,
 * crashes, leftovers, headed, profiles, Grid) start their own browser instead.
 *
 * Invariants (BiDi allows one session per Firefox, and a session outlives its socket):
 * - The Firefox is started without a session: each `webbrain --connect` run makes its own
 *   (`session.new`) and ends it on exit.
 * - After each test the harness proves the run ended its session by opening one itself; if it
 *   cannot, that test fails with a message that says so, and the Firefox is replaced so the
 *   tests after it still run on a clean browser.
 * - Between tests the browser is put back as found: one blank tab, no cookies.
 * - Started with the prefs the runner gives a Firefox it launches, so a run behaves the same.
 */
import { connectBidi, type FirefoxProcess, startFirefoxProcess } from "@webbrain/bidi";
import { testsRunHeadless } from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll } from "vitest";
import { RUNNER_PREFS } from "../src/browser/browser-connection.js";

export interface CliFirefox {
  /** The BiDi endpoint, ws://127.0.0.1:PORT. */
  readonly wsEndpoint: string;
  /** `["--connect", wsEndpoint]`, to append to a `webbrain` command line. */
  connectArgs(): string[];
}

/**
 * A Firefox as useCliFirefox starts it (no session, the runner's prefs), for a file whose
 * `webbrain` server holds its session across several tests, which useCliFirefox's check after
 * each test would take for a leak. The caller disposes it.
 */
export function startCliFirefox(): Promise<FirefoxProcess> {
  return startFirefoxProcess({ headless: testsRunHeadless(), prefs: { ...RUNNER_PREFS } });
}

export function useCliFirefox(): CliFirefox {
  let firefox: FirefoxProcess | undefined;
  const start = async () => {
    firefox = await startCliFirefox();
  };

  beforeAll(start);

  afterEach(async () => {
    if (!firefox) return;
    let session: Awaited<ReturnType<typeof connectBidi>>;
    try {
      session = await connectBidi(firefox.wsEndpoint);
    } catch (error) {
      const replaced = firefox;
      await replaced.dispose(0);
      await start();
      throw new Error(
        `the shared Firefox took no new session after this test (${(error as Error).message}): a webbrain --connect run left its session open; the browser was replaced.`,
      );
    }
    try {
      const { client } = session;
      const tree = await client.send("browsingContext.getTree", { maxDepth: 0 });
      const [keep, ...extra] = tree.contexts;
      for (const tab of extra) await client.send("browsingContext.close", { context: tab.context });
      if (keep)
        await client.send("browsingContext.navigate", {
          context: keep.context,
          url: "about:blank",
          wait: "complete",
        });
      await client.send("storage.deleteCookies", {});
    } finally {
      await session.close();
    }
  });

  afterAll(async () => {
    await firefox?.dispose(0);
  });

  const endpoint = (): string => {
    if (!firefox)
      throw new Error(
        "useCliFirefox: Firefox is not running: use it inside tests, and check beforeAll's error.",
      );
    return firefox.wsEndpoint;
  };
  return {
    get wsEndpoint() {
      return endpoint();
    },
    connectArgs: () => ["--connect", endpoint()],
  };
}
