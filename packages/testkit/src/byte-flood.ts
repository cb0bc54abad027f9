/**
 * A fixture route that answers a huge body without holding it: `total` bytes in 64 KB chunks,
 * written as fast as the client reads (backpressure), stopping when the client goes away.
 * For tests that a client reads with a cap and cancels the rest: `flood.sent` says how much of
 * the body the server got to send before the client left.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FixtureRoute } from "./fixture-server.js";

const FLOOD_CHUNK = Buffer.alloc(64 * 1024, "a");

export interface ByteFlood {
  route: FixtureRoute;
  /** Bytes written for the latest request (0 before the first). */
  readonly sent: number;
  /** Bytes written for each request so far, in order. */
  readonly requests: readonly number[];
}

/** `headers` go out as given; add `content-length` to declare the size up front. */
export function byteFlood(total: number, headers: Record<string, string>): ByteFlood {
  let sent = 0;
  const requests: number[] = [];
  const route = (_req: IncomingMessage, res: ServerResponse) => {
    sent = 0;
    const index = requests.push(0) - 1;
    let closed = false;
    res.on("close", () => {
      closed = true;
    });
    res.writeHead(200, { "cache-control": "no-store", ...headers });
    const pump = () => {
      while (!closed && sent < total) {
        sent += FLOOD_CHUNK.length;
        requests[index] = sent;
        if (!res.write(FLOOD_CHUNK)) {
          res.once("drain", pump);
          return;
        }
      }
      if (!closed) res.end();
    };
    pump();
  };
  return {
    route,
    get sent() {
      return sent;
    },
    requests,
  };
}
