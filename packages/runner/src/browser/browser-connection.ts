/**
 * Where the runner's Firefox comes from: launched here (temp profile, killed and removed on
 * close), a running Firefox's BiDi endpoint (`--connect ws://...`), or a WebDriver server such
 * as Selenium Grid 4 (`--webdriver http://...`).
 *
 * Invariants:
 * - Every way of failing to get a browser is a BrowserUnavailableError whose message says what
 *   was tried and what to do; nothing half-open is left behind.
 * - `lost` resolves (never rejects) with the reason once the browser or the connection goes away
 *   without our asking, so a run can stop at once with a clear message instead of hanging.
 * - `close()` is idempotent and always releases what we took: the launched process and its
 *   profile, or the remote session.
 */
import {
  type BidiClient,
  connectBidi,
  connectWebDriver,
  FirefoxLaunchError,
  FirefoxNotFoundError,
  ForeignProfileError,
  launchFirefox,
  WebDriverHttpError,
} from "@webbrain/bidi";
import { BrowserUnavailableError, UsageError } from "../errors.js";

export interface BrowserConnectionOptions {
  /** Show the window (launch only). */
  headed?: boolean;
  /** Firefox binary to launch. */
  firefoxPath?: string;
  /** A persistent profile the user owns (launch only): kept, never deleted, refused while in use. */
  profileDir?: string;
  /** A running Firefox's BiDi endpoint (ws://host:port[/session]). */
  connect?: string;
  /** A WebDriver classic endpoint with BiDi, such as Selenium Grid 4 (http://host:4444). */
  webdriver?: string;
}

export interface BrowserConnection {
  client: BidiClient;
  /** e.g. "Firefox 153.0 (launched, pid 4242)". */
  description: string;
  /** Resolves with the reason when the browser or connection is gone without our asking. */
  lost: Promise<Error>;
  close(): Promise<void>;
}

/**
 * Capabilities for the sessions we create. Prompts are left to us ("ignore"), so the
 * DialogHandler answers them and tells the model; Firefox must not dismiss them silently.
 */
const SESSION_CAPABILITIES = { unhandledPromptBehavior: { default: "ignore" } } as const;

/**
 * File pickers would block `input.setFiles` on Firefox 153 without this pref. Exported for the
 * tests that start a Firefox for `--connect` runs: it gets the same prefs.
 */
export const RUNNER_PREFS = { "remote.bidi.dismiss_file_pickers.enabled": true } as const;

export async function openBrowserConnection(opts: BrowserConnectionOptions): Promise<BrowserConnection> {
  if (opts.connect && opts.webdriver) {
    throw new BrowserUnavailableError("Give either --connect or --webdriver, not both.");
  }
  if (opts.profileDir && (opts.connect || opts.webdriver)) {
    throw new BrowserUnavailableError(
      "--profile applies to a Firefox webbrain launches; drop it with --connect / --webdriver (that Firefox has its own profile).",
    );
  }
  if (opts.webdriver) checkWebDriverUrl(opts.webdriver);
  if (opts.connect) return connectToEndpoint(opts.connect);
  if (opts.webdriver) return connectToWebDriver(opts.webdriver);
  return launch(opts);
}

async function launch(opts: BrowserConnectionOptions): Promise<BrowserConnection> {
  let browser: Awaited<ReturnType<typeof launchFirefox>>;
  try {
    browser = await launchFirefox({
      headless: !opts.headed,
      ...(opts.firefoxPath ? { executablePath: opts.firefoxPath } : {}),
      ...(opts.profileDir ? { profileDir: opts.profileDir } : {}),
      prefs: RUNNER_PREFS,
      capabilities: SESSION_CAPABILITIES,
    });
  } catch (error) {
    // A --profile folder webbrain did not create is the user's input to fix (nothing was written).
    if (error instanceof ForeignProfileError) throw new UsageError(error.message, { cause: error });
    if (error instanceof FirefoxNotFoundError || error instanceof FirefoxLaunchError) {
      throw new BrowserUnavailableError(`Could not launch Firefox: ${error.message}`, { cause: error });
    }
    throw new BrowserUnavailableError(`Could not launch Firefox: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let closing = false;
  const lost = new Promise<Error>((resolve) => {
    browser.client.onClose((reason) => {
      if (!closing) resolve(reason);
    });
  });
  return {
    client: browser.client,
    description: `Firefox ${browser.browserVersion} (launched, pid ${browser.pid}, profile ${browser.profileDir})`,
    lost,
    close: async () => {
      closing = true;
      await browser.close();
    },
  };
}

async function connectToEndpoint(url: string): Promise<BrowserConnection> {
  let session: Awaited<ReturnType<typeof connectBidi>>;
  try {
    session = await connectBidi(url, { capabilities: SESSION_CAPABILITIES });
  } catch (error) {
    throw new BrowserUnavailableError(
      `Could not connect to Firefox at ${url}: ${(error as Error).message.replace(/\.$/, "")}. Start Firefox with ` +
        "--remote-debugging-port PORT and pass --connect ws://127.0.0.1:PORT (one client at a time).",
      { cause: error },
    );
  }
  // A session joined by URL (/session/<id>) was opened by someone else and reports no version.
  const version = session.browserVersion ? ` ${session.browserVersion}` : "";
  return remoteConnection(session, `Firefox${version} (connected at ${url})`);
}

/** A WebDriver endpoint is an http(s) URL; anything else is a typo worth saying so. */
function checkWebDriverUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new UsageError(
      `--webdriver needs the http(s) URL of a WebDriver server such as Selenium Grid, e.g. http://HOST:4444; got "${url}".`,
    );
  }
}

async function connectToWebDriver(url: string): Promise<BrowserConnection> {
  let session: Awaited<ReturnType<typeof connectWebDriver>>;
  try {
    session = await connectWebDriver(url, { capabilities: SESSION_CAPABILITIES });
  } catch (error) {
    const detail = error instanceof WebDriverHttpError ? error.message : (error as Error).message;
    throw new BrowserUnavailableError(
      `Could not get a Firefox session from the WebDriver server at ${url}: ${detail}`,
      { cause: error },
    );
  }
  return remoteConnection(session, `Firefox ${session.browserVersion} (WebDriver session at ${url})`);
}

function remoteConnection(
  session: { client: BidiClient; close(): Promise<void> },
  description: string,
): BrowserConnection {
  let closing = false;
  const lost = new Promise<Error>((resolve) => {
    session.client.onClose((reason) => {
      if (!closing) resolve(reason);
    });
  });
  return {
    client: session.client,
    description,
    lost,
    close: async () => {
      closing = true;
      await session.close();
    },
  };
}
