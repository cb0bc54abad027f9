/**
 * connectWebDriver: BiDi through a WebDriver classic endpoint such as Selenium Grid 4.
 *
 * `POST /session` with `webSocketUrl: true`, dial the returned `webSocketUrl` (the session already
 * exists, so no `session.new`), and on close `DELETE /session/<id>`, which ends the session and
 * lets the Grid release its node.
 *
 * Invariants:
 * - If the WebSocket cannot be opened after the session was created, the session is deleted
 *   before the error propagates, so a Grid slot is never leaked by a failed connect.
 * - HTTP failures become WebDriverHttpError with the WebDriver error code and the first line of
 *   its message (Selenium appends host and build info on further lines). When no session was
 *   created, the Grid's own `/status` (ready, nodes, Firefox slots) is added, so "no Firefox
 *   node" reads as such instead of as a bare queue timeout.
 */
import type * as Bidi from "webdriver-bidi-protocol";
import { BidiClient, type BidiClientOptions } from "./client.js";
import { WebDriverHttpError } from "./errors.js";
import { attachedSession, type BidiSession } from "./session.js";
import { connectWebSocketTransport } from "./transport.js";

export interface ConnectWebDriverOptions extends BidiClientOptions {
  /** Merged into alwaysMatch after `browserName: "firefox", webSocketUrl: true`. */
  capabilities?: Bidi.Session.CapabilityRequest & Record<string, unknown>;
  /** Extra HTTP headers (both for the HTTP requests and the WebSocket handshake). */
  headers?: Record<string, string>;
  /** Timeout of each HTTP request, ms. A Grid may queue a new session for a while. */
  httpTimeoutMs?: number;
}

export const DEFAULT_WEBDRIVER_HTTP_TIMEOUT_MS = 120_000;
/** DELETE /session should be quick; do not let close hang on a dead Grid. */
const DELETE_SESSION_TIMEOUT_MS = 15_000;
/** GET /status after a failed POST /session: a hint only, never a long wait. */
const STATUS_TIMEOUT_MS = 5_000;

interface NewSessionBody {
  value?: {
    sessionId?: string;
    capabilities?: Record<string, unknown>;
    error?: string;
    message?: string;
  };
}

async function webDriverRequest(
  method: "POST" | "DELETE",
  url: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<NewSessionBody> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { "content-type": "application/json; charset=utf-8", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    if (err instanceof Error && err.name === "TimeoutError") {
      throw new WebDriverHttpError(
        `${method} ${url} got no answer within ${timeoutMs / 1000} s. A Grid queues a new session while no Firefox slot is free: add Firefox nodes, or wait for running sessions to end.`,
        0,
        "timeout",
      );
    }
    const cause = err instanceof Error ? err.message : String(err);
    throw new WebDriverHttpError(
      `${method} ${url} failed: ${cause}. Check that the WebDriver/Grid URL is right and reachable.`,
      0,
      undefined,
    );
  }
  const text = await res.text();
  let parsed: NewSessionBody = {};
  try {
    parsed = text ? (JSON.parse(text) as NewSessionBody) : {};
  } catch {
    // Non-JSON body: reported below if the status is bad.
  }
  if (!res.ok) {
    const code = parsed.value?.error;
    const message = (parsed.value?.message ?? text.slice(0, 500)).split("\n")[0]!.trim();
    throw new WebDriverHttpError(
      `${method} ${url} answered HTTP ${res.status}${code ? ` (${code})` : ""}: ${message}`,
      res.status,
      code,
    );
  }
  return parsed;
}

export async function connectWebDriver(
  httpUrl: string,
  opts: ConnectWebDriverOptions = {},
): Promise<BidiSession> {
  const base = httpUrl.replace(/\/+$/, "");
  const headers = opts.headers ?? {};
  const timeoutMs = opts.httpTimeoutMs ?? DEFAULT_WEBDRIVER_HTTP_TIMEOUT_MS;
  let created: NewSessionBody;
  try {
    created = await webDriverRequest(
      "POST",
      `${base}/session`,
      { capabilities: { alwaysMatch: { browserName: "firefox", ...opts.capabilities, webSocketUrl: true } } },
      headers,
      timeoutMs,
    );
  } catch (err) {
    const status =
      err instanceof WebDriverHttpError && err.status !== 0 ? await gridStatus(base, headers) : "";
    if (!status) throw err;
    const failed = err as WebDriverHttpError;
    throw new WebDriverHttpError(
      `${failed.message.replace(/\.?\s*$/, ".")} ${status}`,
      failed.status,
      failed.code,
    );
  }
  const sessionId = created.value?.sessionId;
  const capabilities = created.value?.capabilities ?? {};
  const deleteSession = async () => {
    await webDriverRequest(
      "DELETE",
      `${base}/session/${sessionId}`,
      undefined,
      headers,
      DELETE_SESSION_TIMEOUT_MS,
    );
  };
  const wsUrl = capabilities.webSocketUrl;
  if (!sessionId || typeof wsUrl !== "string") {
    if (sessionId) await deleteSession().catch(() => {});
    throw new WebDriverHttpError(
      `POST ${base}/session created no BiDi session: the answer lacks ${
        sessionId ? "capabilities.webSocketUrl" : "sessionId"
      }. The endpoint must support WebDriver BiDi (Selenium Grid 4 with Firefox does).`,
      200,
      undefined,
    );
  }
  let client: BidiClient;
  try {
    client = new BidiClient(await connectWebSocketTransport(wsUrl, { headers }), opts);
  } catch (err) {
    await deleteSession().catch(() => {});
    throw err;
  }
  return attachedSession(client, sessionId, capabilities, async () => {
    await client.close();
    await deleteSession();
  });
}

interface GridStatusBody {
  value?: {
    ready?: boolean;
    message?: string;
    nodes?: { slots?: { stereotype?: { browserName?: string } }[] }[];
  };
}

/**
 * What the Grid's `GET /status` says, as one sentence ("" when the endpoint is not a Grid or
 * does not answer): whether it is ready, and how many nodes and Firefox slots it has.
 */
export async function gridStatus(base: string, headers: Record<string, string> = {}): Promise<string> {
  let body: GridStatusBody;
  try {
    const res = await fetch(`${base}/status`, { headers, signal: AbortSignal.timeout(STATUS_TIMEOUT_MS) });
    body = (await res.json()) as GridStatusBody;
  } catch {
    return "";
  }
  const value = body.value;
  if (!value || typeof value.ready !== "boolean" || !Array.isArray(value.nodes)) return "";
  const firefoxSlots = value.nodes
    .flatMap((node) => node.slots ?? [])
    .filter((slot) => slot.stereotype?.browserName === "firefox").length;
  const nodes = value.nodes.length;
  const advice = firefoxSlots === 0 ? " Register Firefox nodes with the Grid, then try again." : "";
  return `The Grid's /status: ${value.ready ? "ready" : "not ready"} ("${value.message ?? ""}"), ${nodes} node${nodes === 1 ? "" : "s"}, ${firefoxSlots} Firefox slot${firefoxSlots === 1 ? "" : "s"}.${advice}`;
}
