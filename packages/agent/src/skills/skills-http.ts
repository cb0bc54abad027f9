/**
 * How a skill's HTTP tool reaches its endpoint. The request goes through `SkillHttp`, a seam
 * of its own rather than the BrowserPort's `fetchUrl`: the port's fetch carries the user's
 * cookies (fetch_url reads pages as the user), a skill's must never (`credentials: "omit"`).
 *
 * Invariants:
 * - The request URL keeps the endpoint's origin: arguments are URL-encoded into `{param}`
 *   placeholders or the query (GET) or sent as a JSON body (POST); they never pick the host.
 * - A URL-like argument (`inputUrlArg`) must match the tool's `inputUrlAllowlist` when it has
 *   one; the active tab's URL fills `activeTabUrlArg` when the model leaves it out.
 * - Redirects are refused (a redirect could leave the declared origin). The body is read as a
 *   stream and the read stops (the body cancelled, `truncated: true`) past `maxChars` characters
 *   or `maxChars * 4` bytes, whichever comes first: an endpoint that answers 300 MB costs a few
 *   KB of memory, not 300 MB. JSON arrays are cut to `maxArrayItems`.
 */
import type { SkillTool, UrlAllowRule } from "./skills.js";

export interface SkillHttpRequest {
  url: string;
  /** DELETE only for a download job's cleanup of its own provider job. */
  method: "GET" | "POST" | "DELETE";
  headers: Record<string, string>;
  body?: string;
  /** Stop reading the body past this many characters. */
  maxChars: number;
  timeoutMs: number;
}

export interface SkillHttpResponse {
  status: number;
  statusText: string;
  url: string;
  contentType: string;
  body: string;
  truncated: boolean;
}

/** The skill network: the add-on and the runner use `platformSkillHttp`; tests may swap it. */
export interface SkillHttp {
  send(request: SkillHttpRequest, signal?: AbortSignal): Promise<SkillHttpResponse>;
}

export const SKILL_TIMEOUT_MS = 30_000;

interface CookielessInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  credentials: "omit";
  redirect: "error";
  signal?: AbortSignal;
}

interface BodyReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(): Promise<void>;
}

interface FetchResult {
  status: number;
  statusText: string;
  url: string;
  headers: { get(name: string): string | null };
  body: { getReader(): BodyReader } | null;
}

/** UTF-8 spends at most 4 bytes on a character: past this many bytes the text cap is surely hit. */
const MAX_BYTES_PER_CHAR = 4;

/**
 * The body as text, read chunk by chunk and cut at `maxChars` characters or `maxChars * 4` bytes.
 * Past the cap the body is cancelled, so the rest is never received, let alone held.
 */
async function readCapped(
  body: FetchResult["body"],
  maxChars: number,
): Promise<{ text: string; truncated: boolean }> {
  if (!body) return { text: "", truncated: false };
  const maxBytes = maxChars * MAX_BYTES_PER_CHAR;
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      text += decoder.decode();
      break;
    }
    bytes += value?.length ?? 0;
    text += decoder.decode(value, { stream: true });
    if (text.length > maxChars || bytes > maxBytes) {
      // A failed cancel (the stream already errored) changes nothing: we have what we keep.
      await reader.cancel().catch(() => undefined);
      return { text: text.slice(0, maxChars), truncated: true };
    }
  }
  return { text: text.slice(0, maxChars), truncated: text.length > maxChars };
}

/** fetch() with credentials omitted and redirects refused: the only way skill tools go out. */
export const platformSkillHttp: SkillHttp = {
  async send(request, signal) {
    const cookieless = fetch as unknown as (url: string, init: CookielessInit) => Promise<FetchResult>;
    // A timeout of our own: AbortSignal.timeout is not among the platform globals the core may use.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${request.timeoutMs} ms`)),
      request.timeoutMs,
    );
    const onStop = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onStop, { once: true });
    try {
      const response = await cookieless(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        credentials: "omit",
        redirect: "error",
        signal: controller.signal,
      });
      const { text, truncated } = await readCapped(response.body, request.maxChars);
      return {
        status: response.status,
        statusText: response.statusText,
        url: response.url || request.url,
        contentType: response.headers.get("content-type") ?? "",
        body: text,
        truncated,
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onStop);
    }
  },
};

function hostAllowed(host: string, rule: UrlAllowRule): boolean {
  const bare = host.replace(/^www\./, "");
  return bare === rule.host || bare.endsWith(`.${rule.host}`) || host === rule.host;
}

/** Null when the URL is allowed, else why not. */
export function checkInputUrl(tool: SkillTool, value: string): string | null {
  if (!tool.inputUrlAllowlist) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${tool.name}: "${value}" is not a URL.`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return `${tool.name}: only http(s) URLs are accepted.`;
  const host = url.hostname.toLowerCase();
  const ok = tool.inputUrlAllowlist.some(
    (rule) => hostAllowed(host, rule) && rule.paths.some((path) => url.pathname.startsWith(path)),
  );
  if (ok) return null;
  const hosts = tool.inputUrlAllowlist.map((rule) => rule.host).join(", ");
  return `${tool.name} accepts URLs on ${hosts} only; ${url.hostname}${url.pathname} is not one of them.`;
}

function argText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The HTTP request for one call, or a message for the model saying what is wrong. */
export function buildSkillRequest(
  tool: SkillTool,
  callArgs: Record<string, unknown>,
  activeTabUrl?: string,
): SkillHttpRequest | string {
  const args: Record<string, unknown> = { ...tool.defaultArgs };
  for (const [key, value] of Object.entries(callArgs))
    if (value !== undefined && value !== null) args[key] = value;
  if (
    tool.activeTabUrlArg &&
    (args[tool.activeTabUrlArg] === undefined || args[tool.activeTabUrlArg] === "")
  ) {
    if (activeTabUrl) args[tool.activeTabUrlArg] = activeTabUrl;
  }
  for (const key of tool.parameters.required ?? []) {
    if (args[key] === undefined || args[key] === "")
      return `${tool.name}: missing required argument "${key}".`;
  }
  if (tool.inputUrlArg && typeof args[tool.inputUrlArg] === "string") {
    const refused = checkInputUrl(tool, args[tool.inputUrlArg] as string);
    if (refused) return refused;
  }
  const used = new Set<string>();
  const filled = tool.endpoint.replace(/\{([a-zA-Z0-9_]+)\}/g, (_, key: string) => {
    used.add(key);
    return encodeURIComponent(args[key] === undefined ? "" : argText(args[key]));
  });
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return `${tool.name}: the arguments do not make a valid URL from ${tool.endpoint}.`;
  }
  if (url.origin !== new URL(tool.endpoint.replace(/\{[^}]*\}/g, "x")).origin) {
    return `${tool.name}: the arguments would change the endpoint's origin; refused.`;
  }
  const rest = Object.fromEntries(Object.entries(args).filter(([key]) => !used.has(key)));
  const request: SkillHttpRequest = {
    url: "",
    method: tool.method,
    headers: { accept: "application/json, text/plain;q=0.9, */*;q=0.5", ...(tool.headers ?? {}) },
    maxChars: tool.responseLimits.maxTextChars * 4,
    timeoutMs: SKILL_TIMEOUT_MS,
  };
  if (tool.method === "GET") {
    for (const [key, value] of Object.entries(rest)) url.searchParams.set(key, argText(value));
  } else {
    request.headers["content-type"] = "application/json";
    request.body = JSON.stringify(rest);
  }
  request.url = url.href;
  return request;
}

function cutArrays(value: unknown, limits: Record<string, number>, path: string, cut: string[]): unknown {
  if (Array.isArray(value)) {
    const max = limits[path];
    const kept = max !== undefined && value.length > max ? value.slice(0, max) : value;
    if (kept !== value) cut.push(`${path}: ${max} of ${value.length}`);
    return kept.map((item) => cutArrays(item, limits, path, cut));
  }
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, child]) => [
        key,
        cutArrays(child, limits, path === "" ? key : `${path}.${key}`, cut),
      ]),
    );
  }
  return value;
}

/** The response as the model reads it: JSON arrays cut, then the text capped. */
export function limitSkillResponse(
  tool: SkillTool,
  response: SkillHttpResponse,
): { text: string; truncated: boolean } {
  let text = response.body;
  let truncated = response.truncated;
  if (/json/i.test(response.contentType) || /^\s*[[{]/.test(text)) {
    try {
      const cut: string[] = [];
      const data = cutArrays(JSON.parse(text), tool.responseLimits.maxArrayItems, "", cut);
      if (cut.length > 0) {
        truncated = true;
        text = JSON.stringify(data);
      }
    } catch {
      // Not JSON after all (or cut mid-way by the read cap): kept as text.
    }
  }
  if (text.length > tool.responseLimits.maxTextChars) {
    text = text.slice(0, tool.responseLimits.maxTextChars);
    truncated = true;
  }
  return { text, truncated };
}

export interface SkillCallResult {
  ok: boolean;
  status?: number;
  url?: string;
  body?: string;
  truncated?: boolean;
  error?: string;
}

/**
 * An error's message with its cause's: Node's fetch says only "fetch failed", and the cause
 * ("connect ECONNREFUSED 127.0.0.1:443", "getaddrinfo ENOTFOUND ...") says why.
 */
export function failureText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
}

/** Run a skill's read-only HTTP tool once. Network failures come back as `ok: false`. */
export async function runHttpSkillTool(
  tool: SkillTool,
  args: Record<string, unknown>,
  context: { http: SkillHttp; activeTabUrl?: string; signal?: AbortSignal },
): Promise<SkillCallResult> {
  const request = buildSkillRequest(tool, args, context.activeTabUrl);
  if (typeof request === "string") return { ok: false, error: request };
  let response: SkillHttpResponse;
  try {
    response = await context.http.send(request, context.signal);
  } catch (error) {
    return {
      ok: false,
      url: request.url,
      error: `The request to ${new URL(request.url).origin} failed: ${failureText(error)}`,
    };
  }
  const { text, truncated } = limitSkillResponse(tool, response);
  const ok = response.status >= 200 && response.status < 300;
  return {
    ok,
    status: response.status,
    url: response.url,
    body: text,
    truncated,
    ...(ok ? {} : { error: `HTTP ${response.status} ${response.statusText}`.trim() }),
  };
}
