/**
 * Typed errors of @webbrain/bidi.
 *
 * Invariants:
 * - Every failure of a command is a `BidiError` (or subclass) carrying the BiDi error code and
 *   the method that failed, so callers branch on `code`, never on message text.
 * - Command errors are constructed synchronously inside `send()`, before any await, so `stack`
 *   points at the caller's line, not at the socket's message handler.
 * - Launch/setup failures are separate classes (`FirefoxNotFoundError`, `FirefoxLaunchError`,
 *   `WebDriverHttpError`) whose messages say what to do next.
 */

/** Codes this client adds to the ones Firefox sends ("no such frame", "invalid argument", ...). */
export const CLIENT_ERROR_CODES = {
  timeout: "timeout",
  aborted: "aborted",
  connectionClosed: "connection closed",
} as const;

/** A WebDriver BiDi command failed: Firefox answered with an error, or the client gave up. */
export class BidiError extends Error {
  override name = "BidiError";
  /** BiDi error code from Firefox (e.g. "no such frame"), or one of CLIENT_ERROR_CODES. */
  code: string;
  /** The command that failed, e.g. "script.evaluate". */
  method: string;
  /** Firefox's remote stack trace, when it sent one. */
  remoteStacktrace: string | undefined;

  constructor(method: string, code = "unknown error", message = "") {
    super(message);
    this.method = method;
    this.code = code;
    this.remoteStacktrace = undefined;
  }
}

/** The command got no answer within its timeout. Firefox may still run it. */
export class BidiTimeoutError extends BidiError {
  override name = "BidiTimeoutError";
}

/** The caller's AbortSignal fired before the answer arrived. */
export class BidiAbortError extends BidiError {
  override name = "BidiAbortError";
}

/** The connection closed (or Firefox died) before or while the command was pending. */
export class BidiConnectionClosedError extends BidiError {
  override name = "BidiConnectionClosedError";
}

/** No usable Firefox executable: the message lists every candidate tried and how to install. */
export class FirefoxNotFoundError extends Error {
  override name = "FirefoxNotFoundError";
  readonly tried: readonly string[];
  constructor(message: string, tried: readonly string[]) {
    super(message);
    this.tried = tried;
  }
}

/** Firefox started but never offered a BiDi endpoint, or exited during startup. */
export class FirefoxLaunchError extends Error {
  override name = "FirefoxLaunchError";
  /** Last lines Firefox wrote to stderr, for diagnosis. */
  readonly stderrTail: string;
  constructor(message: string, stderrTail: string) {
    super(stderrTail ? `${message}\nFirefox stderr (last lines):\n${stderrTail}` : message);
    this.stderrTail = stderrTail;
  }
}

/**
 * The WebSocket to a BiDi endpoint could not be opened: nothing listens there, the handshake
 * timed out, or the server is not a WebSocket server (`status` is then its HTTP answer).
 */
export class BidiConnectError extends Error {
  override name = "BidiConnectError";
  readonly url: string;
  /** HTTP status the server answered instead of upgrading, when it did. */
  readonly status: number | undefined;
  constructor(message: string, url: string, status?: number) {
    super(message);
    this.url = url;
    this.status = status;
  }
}

/** A WebDriver classic (HTTP) endpoint such as Selenium Grid refused or failed a request. */
export class WebDriverHttpError extends Error {
  override name = "WebDriverHttpError";
  readonly status: number;
  /** WebDriver error code from the body (`value.error`), when present. */
  readonly code: string | undefined;
  constructor(message: string, status: number, code: string | undefined) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
