/**
 * The API shortcut observer in the runner: BiDi network events (the same ones NetworkActivity
 * reads, already subscribed by the port) feed the agent's bounded in-memory ApiCallLog with the
 * page's own fetch/XHR calls, per browsing context (the runner's tab id). Off unless a command
 * turns it on. BiDi events carry no request body, so runner records have no request shape;
 * header names are kept without cookies or credentials (ApiCallLog drops them), values never.
 */
import { ApiCallLog, apiReplayGuidance } from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";

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
  readonly #started = new Map<string, Started>();
  #removers: (() => void)[] = [];

  constructor(client: BidiClient) {
    this.#client = client;
  }

  start(): void {
    if (this.#removers.length > 0) return;
    this.log.enabled = true;
    this.#removers.push(
      this.#client.on("network.beforeRequestSent", (event) => {
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
      this.#client.on("network.responseCompleted", (event) => {
        const started = this.#started.get(event.request.request);
        this.#started.delete(event.request.request);
        if (!started) return;
        const headers = event.response.headers as BidiHeader[];
        this.log.record(started.context, {
          method: started.method,
          url: started.url,
          status: event.response.status,
          contentType: header(headers, "content-type") || event.response.mimeType,
          requestBytes: started.requestBytes,
          responseBytes: Number(header(headers, "content-length")) || (event.response.bodySize ?? 0),
          headers: started.headers,
          at: Date.now(),
        });
      }),
      this.#client.on("network.fetchError", (event) => {
        this.#started.delete(event.request.request);
      }),
    );
  }

  stop(): void {
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
