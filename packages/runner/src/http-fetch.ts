/**
 * `fetch_url` for the runner: Node's fetch, bounded in time and size.
 *
 * Invariants:
 * - Never throws for a network failure the model caused (bad host, refused, timeout): it
 *   answers status 0 with a statusText that says what happened, so the model can react.
 * - The body is read as a stream and cut at `maxChars`, so a huge response cannot fill memory.
 */
import type { FetchRequest, FetchResponse } from "@webbrain/agent";

export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
export const DEFAULT_FETCH_MAX_CHARS = 200_000;

export type FetchImpl = typeof fetch;

export async function fetchText(request: FetchRequest, fetchImpl: FetchImpl = fetch): Promise<FetchResponse> {
  const timeoutMs = request.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const maxChars = request.maxChars ?? DEFAULT_FETCH_MAX_CHARS;
  let response: Response;
  try {
    response = await fetchImpl(request.url, {
      method: request.method ?? "GET",
      headers: request.headers,
      body: request.body,
      redirect: "follow",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    const timedOut = (error as Error).name === "TimeoutError";
    return {
      status: 0,
      statusText: timedOut ? `no answer within ${timeoutMs} ms` : `network error: ${cause}`,
      url: request.url,
      headers: {},
      body: "",
      truncated: false,
    };
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const type = headers["content-type"] ?? "";
  const { text, truncated } = await readBodyText(response, maxChars, type);
  return {
    status: response.status,
    statusText: response.statusText,
    url: response.url,
    headers,
    body: text,
    truncated,
  };
}

const TEXT_TYPE = /^text\/|json|xml|javascript|x-www-form-urlencoded/i;

async function readBodyText(
  response: Response,
  maxChars: number,
  type: string,
): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: "", truncated: false };
  if (type && !TEXT_TYPE.test(type)) {
    await response.body.cancel();
    return { text: `(binary body of type ${type}, not shown)`, truncated: false };
  }
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  let text = "";
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.length > maxChars) {
      truncated = true;
      text = text.slice(0, maxChars);
      await reader.cancel();
      break;
    }
  }
  if (!truncated) text += decoder.decode();
  return { text, truncated };
}
