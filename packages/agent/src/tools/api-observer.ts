/**
 * API shortcut observer: a bounded, in-memory record of the XHR/fetch calls a tab's page made,
 * so an agent allowed to (/allow-api) can repeat a call instead of clicking through the UI.
 * The add-on feeds it from webRequest, the runner from BiDi network events.
 *
 * Invariants:
 * - Off unless turned on; memory only (never stored), at most OBSERVED_CALLS_PER_TAB per tab.
 * - No secrets: cookies, authorization and other credential headers are never kept, and bodies
 *   are kept only as their shape (keys and value types), never their values.
 */

/** Calls kept per tab; older ones are dropped first. */
export const OBSERVED_CALLS_PER_TAB = 30;
/** Bodies larger than this are not parsed for a shape. */
export const SHAPE_MAX_BODY_CHARS = 64 * 1024;
/** Nesting levels a shape describes; deeper values are named by kind only ("object", "array"). */
export const SHAPE_MAX_DEPTH = 4;
/** Keys a shape keeps per object; the rest are counted, not listed. */
export const SHAPE_MAX_KEYS = 30;
/** A shape's text is cut past this many characters (the planner's prompt stays small). */
export const SHAPE_MAX_CHARS = 1000;

export interface ObservedApiCall {
  method: string;
  url: string;
  status: number;
  contentType: string;
  /** The request body's shape, e.g. {"name":"string","qty":"number"} (no values). */
  requestShape?: string;
  responseShape?: string;
  requestBytes: number;
  responseBytes: number;
  /** Request header names kept (credential headers dropped). */
  headers: string[];
  at: number;
}

const SECRET_HEADER =
  /^(cookie|set-cookie|authorization|proxy-authorization|x-api-key|x-auth-token|x-csrf-token|x-xsrf-token)$/i;

/** Header names a record may keep: never cookies or credentials. */
export function keptHeaderNames(names: readonly string[]): string[] {
  return names.filter((name) => !SECRET_HEADER.test(name)).map((name) => name.toLowerCase());
}

/** The shape of a JSON value: keys and types, never values. */
export function jsonShape(value: unknown, depth = 0): unknown {
  if (value === null) return "null";
  if (Array.isArray(value))
    return depth >= SHAPE_MAX_DEPTH ? "array" : value.length ? [jsonShape(value[0], depth + 1)] : [];
  if (typeof value === "object") {
    if (depth >= SHAPE_MAX_DEPTH) return "object";
    const entries = Object.entries(value as Record<string, unknown>);
    const shape = Object.fromEntries(
      entries.slice(0, SHAPE_MAX_KEYS).map(([k, v]) => [k, jsonShape(v, depth + 1)]),
    );
    if (entries.length > SHAPE_MAX_KEYS) shape["…"] = `${entries.length - SHAPE_MAX_KEYS} more keys`;
    return shape;
  }
  return typeof value;
}

function capShape(text: string): string {
  return text.length <= SHAPE_MAX_CHARS ? text : `${text.slice(0, SHAPE_MAX_CHARS)}…`;
}

/** The shape of a body as text: JSON's shape, form fields' names, else undefined. */
export function bodyShape(body: string | undefined, contentType: string): string | undefined {
  if (!body || body.length > SHAPE_MAX_BODY_CHARS) return undefined;
  if (/json/i.test(contentType) || /^[[{]/.test(body.trim())) {
    try {
      return capShape(JSON.stringify(jsonShape(JSON.parse(body))));
    } catch {
      return undefined;
    }
  }
  if (/x-www-form-urlencoded/i.test(contentType)) {
    const names = [...new URLSearchParams(body).keys()];
    return names.length ? capShape(`form fields: ${names.join(", ")}`) : undefined;
  }
  return undefined;
}

/** Drops query parameters that look like credentials from a URL before it is kept. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    for (const key of [...parsed.searchParams.keys()]) {
      if (/token|key|secret|password|auth|session|sig/i.test(key)) parsed.searchParams.set(key, "REDACTED");
    }
    return parsed.toString();
  } catch {
    return url;
  }
}

export class ApiCallLog {
  private readonly byTab = new Map<string, ObservedApiCall[]>();
  enabled = false;

  constructor(private readonly limit = OBSERVED_CALLS_PER_TAB) {}

  record(tabId: string, call: ObservedApiCall): void {
    if (!this.enabled) return;
    const list = this.byTab.get(tabId) ?? [];
    list.push({ ...call, url: redactUrl(call.url), headers: keptHeaderNames(call.headers) });
    while (list.length > this.limit) list.shift();
    this.byTab.set(tabId, list);
  }

  calls(tabId: string): readonly ObservedApiCall[] {
    return this.byTab.get(tabId) ?? [];
  }

  forgetTab(tabId: string): void {
    this.byTab.delete(tabId);
  }

  /** Turning the observer off forgets everything it saw. */
  disable(): void {
    this.enabled = false;
    this.byTab.clear();
  }
}

/** The planner's API-replay guidance for a tab's observed calls ("" when none). */
export function apiReplayGuidance(calls: readonly ObservedApiCall[]): string {
  if (calls.length === 0) return "";
  const lines = calls.slice(-12).map((call) => {
    const body = call.requestShape ? ` body ${call.requestShape}` : "";
    const answer = call.responseShape ? ` -> ${call.status} ${call.responseShape}` : ` -> ${call.status}`;
    return `- ${call.method} ${call.url}${body}${answer}`;
  });
  return [
    "API shortcuts: the user allowed API calls (/allow-api). This page made these calls (shapes only, no values):",
    ...lines,
    "Where one of them does the task, plan to repeat it with fetch_url (same method, URL and body shape, the user's values) instead of clicking through the page, then check the result on the page.",
  ].join("\n");
}
