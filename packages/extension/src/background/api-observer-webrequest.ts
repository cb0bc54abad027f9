/**
 * The API shortcut observer in the add-on (spec 000): off by default; when the user turns it on
 * (traces page), `webRequest` reports every page XHR/fetch call and the bounded in-memory
 * ApiCallLog (@webbrain/agent) keeps its method, URL, status, content type, request and
 * response body shapes (keys and value types, bounded) and sizes. Cookies and authorization
 * headers are never kept, nor any body value; nothing is stored. While it is on, the toolbar
 * button carries an "API" badge, and the planner gets the tab's calls as replay guidance only
 * in conversations with /allow-api.
 *
 * Response bodies come from `webRequest.filterResponseData` (Firefox's stream filter), not a
 * fetch/XHR wrapper injected into the page: the filter sees the bytes the page receives without
 * running code in the page's own world (where the page could see, replace or bypass a wrapper,
 * or keep fetch from before the content script ran), and it covers fetch and XHR alike. Every
 * chunk is passed on unchanged at once; at most SHAPE_MAX_BODY_CHARS are copied for the shape.
 * The filter needs a blocking onBeforeRequest listener (webRequestBlocking), installed only
 * while the observer is on.
 */
import { ApiCallLog, apiReplayGuidance, bodyShape, SHAPE_MAX_BODY_CHARS } from "@webbrain/agent";
import { t } from "../shared/i18n.js";

/** The webRequest events and details this observer uses (bodies and headers included). */
interface RequestFilter {
  urls: string[];
  types?: string[];
}
interface HttpHeader {
  name: string;
  value?: string;
}
interface RequestDetails {
  requestId: string;
  tabId: number;
  method: string;
  url: string;
  timeStamp: number;
}
interface BeforeRequestDetails extends RequestDetails {
  requestBody?: { raw?: { bytes?: ArrayBuffer }[]; formData?: Record<string, string[]> };
}
interface SendHeadersDetails extends RequestDetails {
  requestHeaders?: HttpHeader[];
}
interface CompletedDetails extends RequestDetails {
  statusCode: number;
  responseHeaders?: HttpHeader[];
}
interface RequestEvent<D> {
  addListener(listener: (details: D) => void, filter: RequestFilter, extraInfo?: string[]): void;
  removeListener(listener: (details: D) => void): void;
}
/** Firefox's StreamFilter (MDN webRequest.StreamFilter), the parts used here. */
interface StreamFilter {
  ondata: ((event: { data: ArrayBuffer }) => void) | null;
  onstop: (() => void) | null;
  onerror: (() => void) | null;
  write(data: ArrayBuffer): void;
  close(): void;
  disconnect(): void;
}
interface ObserverWebRequest {
  onBeforeRequest: RequestEvent<BeforeRequestDetails>;
  filterResponseData(requestId: string): StreamFilter;
  onSendHeaders: RequestEvent<SendHeadersDetails>;
  onCompleted: RequestEvent<CompletedDetails>;
  onErrorOccurred: RequestEvent<RequestDetails>;
}

function webRequest(): ObserverWebRequest {
  return (browser as unknown as { webRequest: ObserverWebRequest }).webRequest;
}

export const API_OBSERVER_KEY = "apiObserver";
const BADGE_TEXT = "API";
const FILTER: RequestFilter = { urls: ["<all_urls>"], types: ["xmlhttprequest"] };

export function apiObserverEnabled(value: unknown): boolean {
  return (value as { enabled?: unknown } | undefined)?.enabled === true;
}

interface Pending {
  tabId: number;
  method: string;
  url: string;
  requestShape?: string;
  requestBytes: number;
  headers: string[];
  /** The response body's text (up to the shape bound), once the stream filter has seen it all. */
  responseBody: Promise<string | undefined>;
}

/** How long a completed request waits for its stream filter to finish (it usually has). */
const BODY_WAIT_MS = 2000;

/**
 * Copies a response's bytes (up to SHAPE_MAX_BODY_CHARS) while passing every chunk on at once;
 * answers the text, or undefined when the body was too large or the filter failed.
 */
function readResponse(requestId: string): Promise<string | undefined> {
  let filter: StreamFilter;
  try {
    filter = webRequest().filterResponseData(requestId);
  } catch {
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let tooLarge = false;
    filter.ondata = (event) => {
      filter.write(event.data);
      if (tooLarge) return;
      size += event.data.byteLength;
      if (size > SHAPE_MAX_BODY_CHARS) {
        tooLarge = true;
        chunks.length = 0;
        // Nothing more to copy: hand the rest of the stream straight to the page.
        filter.disconnect();
        resolve(undefined);
        return;
      }
      chunks.push(new Uint8Array(event.data.slice(0)));
    };
    filter.onstop = () => {
      filter.close();
      resolve(tooLarge ? undefined : new TextDecoder().decode(join(chunks, size)));
    };
    filter.onerror = () => resolve(undefined);
  });
}

function join(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const joined = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return joined;
}

function headerValue(headers: HttpHeader[] | undefined, name: string): string {
  return headers?.find((h) => h.name.toLowerCase() === name)?.value ?? "";
}

function decodeBody(details: BeforeRequestDetails): { text?: string; bytes: number } {
  const body = details.requestBody;
  if (body?.formData) {
    const text = new URLSearchParams(
      Object.entries(body.formData).flatMap(([k, values]) => values.map((v) => [k, v])),
    ).toString();
    return { text, bytes: text.length };
  }
  const chunks = body?.raw?.flatMap((part) => (part.bytes ? [new Uint8Array(part.bytes)] : [])) ?? [];
  const bytes = chunks.reduce((sum, c) => sum + c.length, 0);
  if (!chunks.length) return { bytes: 0 };
  const joined = new Uint8Array(bytes);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return { text: new TextDecoder().decode(joined), bytes };
}

export class WebRequestApiObserver {
  readonly log = new ApiCallLog();
  private readonly pending = new Map<string, Pending>();

  /** Listens while the setting is on; follows the setting as the user changes it. */
  async start(): Promise<void> {
    const stored = await browser.storage.local.get(API_OBSERVER_KEY);
    this.set(apiObserverEnabled(stored[API_OBSERVER_KEY]));
    browser.storage.onChanged.addListener((changes, area) => {
      if (area === "local" && API_OBSERVER_KEY in changes) {
        this.set(apiObserverEnabled(changes[API_OBSERVER_KEY]?.newValue));
      }
    });
    browser.tabs.onRemoved.addListener((tabId) => this.log.forgetTab(String(tabId)));
  }

  /** The planner's API-replay guidance for a tab ("" when nothing was seen). */
  guidance(tabId: string): string {
    return apiReplayGuidance(this.log.calls(tabId));
  }

  private set(enabled: boolean): void {
    if (enabled === this.log.enabled) return;
    if (enabled) {
      this.log.enabled = true;
      webRequest().onBeforeRequest.addListener(this.onBefore, FILTER, ["blocking", "requestBody"]);
      webRequest().onSendHeaders.addListener(this.onHeaders, FILTER, ["requestHeaders"]);
      webRequest().onCompleted.addListener(this.onCompleted, FILTER, ["responseHeaders"]);
      webRequest().onErrorOccurred.addListener(this.onError, FILTER);
    } else {
      this.log.disable();
      this.pending.clear();
      webRequest().onBeforeRequest.removeListener(this.onBefore);
      webRequest().onSendHeaders.removeListener(this.onHeaders);
      webRequest().onCompleted.removeListener(this.onCompleted);
      webRequest().onErrorOccurred.removeListener(this.onError);
    }
    void browser.browserAction.setBadgeText({ text: enabled ? BADGE_TEXT : "" });
    void browser.browserAction.setTitle({ title: t(enabled ? "apiObserverBadgeTitle" : "openWebBrain") });
  }

  private readonly onBefore = (details: BeforeRequestDetails): void => {
    if (details.tabId < 0) return; // the add-on's own requests (models, fetch_url)
    const body = decodeBody(details);
    const requestShape = body.text ? bodyShape(body.text, "") : undefined;
    this.pending.set(details.requestId, {
      tabId: details.tabId,
      method: details.method,
      url: details.url,
      requestBytes: body.bytes,
      headers: [],
      ...(requestShape ? { requestShape } : {}),
      responseBody: readResponse(details.requestId),
    });
  };

  private readonly onHeaders = (details: SendHeadersDetails): void => {
    const pending = this.pending.get(details.requestId);
    if (!pending) return;
    pending.headers = (details.requestHeaders ?? []).map((h) => h.name);
    const type = headerValue(details.requestHeaders, "content-type");
    if (pending.requestShape === undefined && type) delete pending.requestShape;
  };

  private readonly onCompleted = (details: CompletedDetails): void => {
    const pending = this.pending.get(details.requestId);
    this.pending.delete(details.requestId);
    if (!pending) return;
    const contentType = headerValue(details.responseHeaders, "content-type");
    const timeout = new Promise<undefined>((resolve) => setTimeout(resolve, BODY_WAIT_MS));
    void Promise.race([pending.responseBody, timeout]).then((text) => {
      const responseShape = bodyShape(text, contentType);
      this.log.record(String(pending.tabId), {
        method: pending.method,
        url: pending.url,
        status: details.statusCode,
        contentType,
        ...(pending.requestShape ? { requestShape: pending.requestShape } : {}),
        ...(responseShape ? { responseShape } : {}),
        requestBytes: pending.requestBytes,
        responseBytes: Number(headerValue(details.responseHeaders, "content-length")) || 0,
        headers: pending.headers,
        at: details.timeStamp,
      });
    });
  };

  private readonly onError = (details: RequestDetails): void => {
    this.pending.delete(details.requestId);
  };
}
