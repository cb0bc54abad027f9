/**
 * A scripted request event source and clock for the port-kit tests: the test says when a
 * request begins and ends and when time moves, as a port's browser events would.
 */
import { InFlightRequests, type RequestEventSink } from "../../src/index.js";

export function scriptedRequests<Owner>() {
  let sink: RequestEventSink<Owner> | undefined;
  let subscriptions = 0;
  let now = 1_000;
  const requests = new InFlightRequests<Owner>(
    (next) => {
      sink = next;
      subscriptions += 1;
      return () => {
        sink = undefined;
      };
    },
    () => now,
  );
  requests.start();
  const feed = () => {
    if (!sink) throw new Error("nothing is listening");
    return sink;
  };
  return {
    requests,
    begin: (id: string, owner: Owner, url = `https://a.test/${id}`) => feed().began(id, owner, url),
    end: (id: string) => feed().ended(id),
    gone: (owner: Owner) => feed().ownerGone(owner),
    advance: (ms: number) => {
      now += ms;
    },
    now: () => now,
    listening: () => sink !== undefined,
    subscriptions: () => subscriptions,
  };
}
