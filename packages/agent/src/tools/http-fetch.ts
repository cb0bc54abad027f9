/**
 * `fetch_url`, written once: both ports answer `BrowserPort.fetchUrl` with `fetchText`, each
 * through its own fetch (the seam): the runner's is Node's, the add-on's sends the user's
 * cookies. Skills' HTTP tools and the add-on's read_downloaded_file use it too.
 *
 * Invariants:
 * - Never throws for a network failure the model caused (bad host, refused, timeout): it
 *   answers status 0 with a statusText that says what happened, so the model can react. A
 *   Stop (the caller's signal) does throw: the run is over.
 * - The body is read as a stream and cut at `maxChars`, so a huge response cannot fill memory.
 * - Only text is read: a body whose type is not text (HTTP_TEXT_TYPE) is described, not decoded.
 *   A body without a type is read as text.
 */
import type { FetchRequest, FetchResponse } from "./browser-port.js";

export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
export const DEFAULT_FETCH_MAX_CHARS = 200_000;
/** What fetch_url asks for when the model sets nothing: the result cap less the wrapper. */
export const FETCH_URL_MAX_CHARS = 8_000;

/** Content types read as text: text/*, JSON, XML, JavaScript, form data, and `+json`/`+xml`. */
export const HTTP_TEXT_TYPE =
  /^\s*(text\/|application\/(json|xml|xhtml\+xml|javascript|ecmascript|x-www-form-urlencoded|ld\+json)\b|[^;]*\+json\b|[^;]*\+xml\b)/i;

/** The part of a fetch Response the agent reads (Node's and Firefox's both fit). */
export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly headers: { forEach(callback: (value: string, key: string) => void): void };
  readonly body: {
    getReader(): {
      read(): Promise<{ done: boolean; value?: Uint8Array }>;
      cancel(): Promise<void>;
    };
    cancel(): Promise<void>;
  } | null;
}

export interface HttpRequestInit {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  redirect: "follow";
  signal: AbortSignal;
  /** "omit": a port's fetch sends none of the user's cookies (Ask, a site the user did not give). */
  credentials?: "include" | "omit";
}

/** The seam: a port's fetch (Node's, or the add-on's with the user's cookies). */
export type HttpFetch = (url: string, init: HttpRequestInit) => Promise<HttpResponse>;

function str(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
}

/** fetch_url's arguments as the model sent them, as a request. */
export function fetchRequestFor(args: Record<string, unknown>, timeoutMs: number): FetchRequest {
  const headers: Record<string, string> = {};
  if (typeof args.headers === "object" && args.headers !== null && !Array.isArray(args.headers)) {
    for (const [key, value] of Object.entries(args.headers)) headers[key] = str(value);
  }
  return {
    url: str(args.url),
    method: str(args.method || "GET").toUpperCase(),
    headers,
    ...(args.body !== undefined ? { body: str(args.body) } : {}),
    timeoutMs,
    maxChars: FETCH_URL_MAX_CHARS,
  };
}

export async function fetchText(
  request: FetchRequest,
  fetchImpl: HttpFetch,
  stop?: AbortSignal,
): Promise<FetchResponse> {
  const timeoutMs = request.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const maxChars = request.maxChars ?? DEFAULT_FETCH_MAX_CHARS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
  let response: HttpResponse;
  try {
    response = await fetchImpl(request.url, {
      method: request.method ?? "GET",
      ...(request.headers ? { headers: request.headers } : {}),
      ...(request.body !== undefined ? { body: request.body } : {}),
      ...(request.credentials ? { credentials: request.credentials } : {}),
      redirect: "follow",
      signal,
    });
  } catch (error) {
    if (stop?.aborted) throw error;
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    return {
      status: 0,
      statusText: timeout.aborted ? `no answer within ${timeoutMs} ms` : `network error: ${cause}`,
      url: request.url,
      headers: {},
      body: "",
      truncated: false,
    };
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key.toLowerCase()] = value;
  });
  const type = headers["content-type"] ?? "";
  const { text, truncated } = await readBodyText(response, maxChars, type);
  return {
    status: response.status,
    statusText: response.statusText,
    url: response.url || request.url,
    headers,
    body: text,
    truncated,
  };
}

async function readBodyText(
  response: HttpResponse,
  maxChars: number,
  type: string,
): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: "", truncated: false };
  if (type && !HTTP_TEXT_TYPE.test(type)) {
    await response.body.cancel();
    return { text: `(binary body of type ${type}, not shown)`, truncated: false };
  }
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), truncated: false };
    text += decoder.decode(value, { stream: true });
    if (text.length > maxChars) {
      await reader.cancel();
      return { text: text.slice(0, maxChars), truncated: true };
    }
  }
}
