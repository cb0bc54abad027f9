/**
 * A BiDi session over a WebSocket: connect, `session.new` when the endpoint needs one, and a
 * close that ends the session, because in Firefox a session outlives its socket (a dangling one
 * blocks every later `session.new` until the browser restarts).
 *
 * Endpoint rules (connectBidi):
 * - `ws://host:port` or `ws://host:port/session`: connect to /session, send `session.new`;
 *   close sends `session.end` (or `browser.close` with `closeBrowser`).
 * - `ws://host:port/session/<id>` (from WebDriver classic / a Grid): the session exists already;
 *   no `session.new`, and ending it is the HTTP side's job (see webdriver-classic.ts).
 */
import type * as Bidi from "webdriver-bidi-protocol";
import { BidiClient, type BidiClientOptions } from "./client.js";
import { connectWebSocketTransport, type WebSocketTransportOptions } from "./transport.js";

export interface ConnectBidiOptions extends BidiClientOptions, WebSocketTransportOptions {
  /** Capabilities for `session.new` (alwaysMatch). */
  capabilities?: Bidi.Session.CapabilityRequest;
  /** On close, `browser.close` instead of `session.end` (only for sessions we created). */
  closeBrowser?: boolean;
}

export interface BidiSession {
  client: BidiClient;
  /** Session id, when known (absent for a pre-existing session whose id is not in the URL). */
  sessionId: string | undefined;
  browserName: string;
  browserVersion: string;
  capabilities: Record<string, unknown>;
  /** Ends the session (if we created it) and closes the socket. Idempotent. */
  close(): Promise<void>;
}

/** How long close waits for session.end / browser.close to be acknowledged. */
export const SESSION_END_TIMEOUT_MS = 5_000;
const EXISTING_SESSION_PATH = /^\/session\/([^/]+)/;

/** Splits a BiDi URL into the URL to dial and the id of a pre-existing session, if any. */
export function parseBidiEndpoint(wsUrl: string): { dialUrl: string; existingSessionId: string | undefined } {
  let url: URL;
  try {
    url = new URL(wsUrl);
  } catch {
    throw new TypeError(`Not a WebSocket URL: ${JSON.stringify(wsUrl)}. Expected ws://host:port[/session].`);
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    throw new TypeError(
      `Not a WebSocket URL: ${JSON.stringify(wsUrl)} (protocol ${url.protocol}). For an http:// WebDriver` +
        " endpoint such as Selenium Grid use connectWebDriver().",
    );
  }
  const existing = EXISTING_SESSION_PATH.exec(url.pathname);
  if (existing) return { dialUrl: url.toString(), existingSessionId: existing[1] };
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/session";
  return { dialUrl: url.toString(), existingSessionId: undefined };
}

export async function connectBidi(wsUrl: string, opts: ConnectBidiOptions = {}): Promise<BidiSession> {
  const { dialUrl, existingSessionId } = parseBidiEndpoint(wsUrl);
  const transport = await connectWebSocketTransport(dialUrl, opts);
  const client = new BidiClient(transport, opts);
  if (existingSessionId !== undefined) {
    return attachedSession(client, existingSessionId, {}, async () => client.close());
  }
  return startSession(client, opts);
}

/**
 * Sends `session.new` on a fresh connection and returns a session whose close ends it
 * (`session.end`, or `browser.close` with `closeBrowser`). Closes the client if session.new fails.
 */
export async function startSession(
  client: BidiClient,
  opts: Pick<ConnectBidiOptions, "capabilities" | "closeBrowser"> = {},
): Promise<BidiSession> {
  let result: Bidi.Session.NewResult;
  try {
    result = await client.send("session.new", { capabilities: { alwaysMatch: opts.capabilities ?? {} } });
  } catch (err) {
    await client.close();
    throw err;
  }
  const endMethod = opts.closeBrowser ? "browser.close" : "session.end";
  return attachedSession(client, result.sessionId, result.capabilities, async () => {
    if (!client.closed) {
      await client.send(endMethod, {}, { timeoutMs: SESSION_END_TIMEOUT_MS }).catch(() => {
        // Already gone (browser closing, socket dropped): nothing left to end.
      });
    }
    await client.close();
  });
}

/** Wraps a client and its capabilities; `end` runs at most once. */
export function attachedSession(
  client: BidiClient,
  sessionId: string | undefined,
  capabilities: Record<string, unknown>,
  end: () => Promise<void>,
): BidiSession {
  let closing: Promise<void> | undefined;
  return {
    client,
    sessionId,
    browserName: String(capabilities.browserName ?? ""),
    browserVersion: String(capabilities.browserVersion ?? ""),
    capabilities,
    close: () => {
      closing ??= end();
      return closing;
    },
  };
}
