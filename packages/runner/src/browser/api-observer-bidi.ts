/**
 * The API shortcut observer in the runner: BiDi network events (the same ones NetworkActivity
 * reads; from the port's `contexts.bidiEvents`, only those of the port's own contexts) feed the
 * agent's bounded in-memory ApiCallLog with the page's own fetch/XHR calls, per browsing context
 * (the runner's tab id). Off unless a command turns it on. Bodies: Firefox 153 keeps request and response bodies for BiDi clients that ask
 * (`network.addDataCollector`, then `network.getData` per request; checked on 153, see
 * test/api-observer.test.ts), so each call's request and response body is read once, turned
 * into its shape (keys and value types, bounded: agent's bodyShape) and dropped; values are
 * never kept. Header names are kept without cookies or credentials (ApiCallLog drops them),
 * values never.
 */
import { ApiCallLog, apiReplayGuidance, bodyShape, SHAPE_MAX_BODY_CHARS } from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";
import type { BidiEventSource } from "./browsing-context-state.js";

const SCRIPT_INITIATED = new Set(["fetch", "xmlhttprequest"]);

interface BidiHeader {
  name: string;
  value?: { value?: string };
}

interface Started {
  context: string;
  method: string;
  url: string;
  headers: string[];
  requestBytes: number;
}

function header(headers: readonly BidiHeader[] | undefined, name: string): string {
  return headers?.find((h) => h.name.toLowerCase() === name)?.value?.value ?? "";
}

export class BidiApiObserver {
  readonly log = new ApiCallLog();
  readonly #client: BidiClient;
  readonly #events: BidiEventSource;
  readonly #started = new Map<string, Started>();
  #removers: (() => void)[] = [];
  #collector: Promise<string | undefined> | undefined;

  /** Commands go to `client`; events come from `events` (the client's own by default). */
  constructor(client: BidiClient, events: BidiEventSource = client) {
    this.#client = client;
    this.#events = events;
  }

  start(): void {
    if (this.#removers.length > 0) return;
    this.log.enabled = true;
    // Bodies are collected only while observing, and only up to the size a shape is read from.
    this.#collector = this.#client
      .send("network.addDataCollector", {
        dataTypes: ["request", "response"],
        maxEncodedDataSize: SHAPE_MAX_BODY_CHARS,
      })
      .then(
        (added) => added.collector,
        () => undefined, // an older Firefox: calls are recorded without body shapes
      );
    this.#removers.push(
      this.#events.on("network.beforeRequestSent", (event) => {
        const request = event.request as typeof event.request & { initiatorType?: string | null };
        if (!event.context || !request.initiatorType || !SCRIPT_INITIATED.has(request.initiatorType)) return;
        this.#started.set(request.request, {
          context: event.context,
          method: request.method,
          url: request.url,
          headers: (request.headers as BidiHeader[]).map((h) => h.name),
          requestBytes: request.bodySize ?? 0,
        });
      }),
      this.#events.on("network.responseCompleted", (event) => {
        const started = this.#started.get(event.request.request);
        this.#started.delete(event.request.request);
        if (!started) return;
        const headers = event.response.headers as BidiHeader[];
        const contentType = header(headers, "content-type") || event.response.mimeType;
        void this.#shapes(event.request.request, started, contentType).then((shapes) =>
          this.log.record(started.context, {
            method: started.method,
            url: started.url,
            status: event.response.status,
            contentType,
            ...shapes,
            requestBytes: started.requestBytes,
            responseBytes: Number(header(headers, "content-length")) || (event.response.bodySize ?? 0),
            headers: started.headers,
            at: Date.now(),
          }),
        );
      }),
      this.#events.on("network.fetchError", (event) => {
        this.#started.delete(event.request.request);
      }),
    );
  }

  /** The request's and response's body shapes, read from Firefox's collected data. */
  async #shapes(
    request: string,
    started: Started,
    contentType: string,
  ): Promise<{ requestShape?: string; responseShape?: string }> {
    if (!(await this.#collector)) return {};
    const body = async (dataType: "request" | "response") => {
      try {
        const data = await this.#client.send("network.getData", { dataType, request });
        const bytes = data.bytes;
        return bytes.type === "string" ? bytes.value : Buffer.from(bytes.value, "base64").toString("utf8");
      } catch {
        return undefined; // no body, or larger than the collector keeps
      }
    };
    const requestBody = started.requestBytes > 0 ? await body("request") : undefined;
    const responseBody = await body("response");
    const requestShape = bodyShape(requestBody, "");
    const responseShape = bodyShape(responseBody, contentType);
    return { ...(requestShape ? { requestShape } : {}), ...(responseShape ? { responseShape } : {}) };
  }

  stop(): void {
    const collector = this.#collector;
    this.#collector = undefined;
    void collector?.then((id) =>
      id
        ? this.#client.send("network.removeDataCollector", { collector: id }).catch(() => undefined)
        : undefined,
    );
    for (const remove of this.#removers) remove();
    this.#removers = [];
    this.#started.clear();
    this.log.disable();
  }

  /** The planner's API-replay guidance for a tab ("" when nothing was seen). */
  guidance(tabId: string): string {
    return apiReplayGuidance(this.log.calls(tabId));
  }
}
