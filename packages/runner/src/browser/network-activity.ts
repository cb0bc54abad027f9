/**
 * Fetch and XHR requests in flight, per browsing context, from BiDi network events: the runner's
 * feed for the agent's `InFlightRequests` (the bookkeeping, long polls and the wait for none live
 * there, shared with the add-on), which `wait_for_stable` reads besides a quiet DOM. Page script
 * cannot see a request until it has finished; Firefox can.
 *
 * Invariants:
 * - Only requests a page script started count (`initiatorType` fetch or xmlhttprequest):
 *   images, styles and documents settle with the load event, which the page layer checks.
 * - A request ends with `network.responseCompleted` or `network.fetchError`; a redirect keeps
 *   its request id, so it stays one request. A destroyed context drops its requests.
 * - Events come from a BidiEventSource: the port's BrowsingContextTree (only its own contexts'
 *   events, on the port's one subscription), or a BidiClient in unit tests.
 */
import { InFlightRequests, type RequestEventSource } from "@webbrain/agent";
import type { BidiEventSource } from "./browsing-context-state.js";

export { LONG_POLL_MS, type PendingRequest } from "@webbrain/agent";

const SCRIPT_INITIATED = new Set(["fetch", "xmlhttprequest"]);

/** Script-initiated requests by browsing context, from the source's BiDi events. */
function bidiRequestEvents(client: BidiEventSource): RequestEventSource<string> {
  return (sink) => {
    const removers = [
      client.on("network.beforeRequestSent", (event) => {
        const initiatorType = (event.request as { initiatorType?: string | null }).initiatorType;
        if (!event.context || !initiatorType || !SCRIPT_INITIATED.has(initiatorType)) return;
        sink.began(event.request.request, event.context, event.request.url);
      }),
      client.on("network.responseCompleted", (event) => sink.ended(event.request.request)),
      client.on("network.fetchError", (event) => sink.ended(event.request.request)),
      client.on("browsingContext.contextDestroyed", (info) => sink.ownerGone(info.context)),
    ];
    return () => {
      for (const remove of removers) remove();
    };
  };
}

/** Requests in flight by browsing context: `pending(contexts)`, `waitForIdle(contexts, ...)`. */
export class NetworkActivity extends InFlightRequests<string> {
  constructor(client: BidiEventSource, now: () => number = performance.now.bind(performance)) {
    super(bidiRequestEvents(client), now);
  }
}
