/**
 * `fetch_url` for the runner: the agent's one implementation (`fetchText` in @webbrain/agent,
 * shared with the add-on) over Node's fetch, the runner's side of the fetch seam.
 */
import { type FetchRequest, type FetchResponse, fetchText as fetchThroughSeam } from "@webbrain/agent";

export type FetchImpl = typeof fetch;

export function fetchText(
  request: FetchRequest,
  fetchImpl: FetchImpl = fetch,
  stop?: AbortSignal,
): Promise<FetchResponse> {
  return fetchThroughSeam(request, fetchImpl, stop);
}
