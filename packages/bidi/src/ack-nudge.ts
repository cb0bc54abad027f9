/**
 * Keeps Firefox from stalling mid-message on a TCP ACK.
 *
 * Firefox's BiDi server leaves Nagle's algorithm on. An answer of roughly 33-92 KB (a tree, a
 * viewport screenshot) leaves in a first part and a tail, and the tail waits for our ACK of the
 * first part. Linux delays that ACK up to 40 ms when a connection looks like request/response,
 * which a BiDi session does. Measured on Firefox 153 over loopback: a 70 KB answer took 48 ms,
 * a 20 KB one 5 ms and a 150 KB one 7 ms.
 *
 * Node cannot ask the kernel for a quick ACK (TCP_QUICKACK), but any data we send carries one.
 * So when a large chunk arrives and no message completes within a millisecond, this sends an
 * unsolicited WebSocket pong (RFC 6455 5.5.3: a one-way heartbeat nobody answers). Not a ping:
 * Firefox's small pong reply would itself wait for an ACK, and hold back the next answer the
 * same way. With it, 40-90 KB answers took 5-8 ms.
 *
 * Invariants:
 * - At most one pong per message: none is sent again until a message completes.
 * - Small chunks (every command's usual answer) arm nothing.
 * - Its timer never keeps the process alive, and nothing is sent once the socket is not open.
 */
import type { Duplex } from "node:stream";
import WebSocket from "ws";

/** A chunk this large may be the first part of a held-back message. */
const LARGE_CHUNK_BYTES = 8 * 1024;
/** How long a message may stay incomplete after a large chunk before we send a pong. */
const NUDGE_AFTER_MS = 1;

export interface AckNudge {
  /** Stops watching (the socket closed). */
  dispose(): void;
}

export function nudgeAcks(ws: WebSocket, socket: Duplex): AckNudge {
  let messages = 0;
  let nudgedAt = -1;
  let timer: NodeJS.Timeout | undefined;
  const onMessage = (): void => {
    messages += 1;
  };
  const onData = (chunk: Buffer): void => {
    if (timer !== undefined || chunk.length < LARGE_CHUNK_BYTES || nudgedAt === messages) return;
    // Runs before ws reads the chunk (prepended), so a chunk that completes a message counts it.
    const before = messages;
    timer = setTimeout(() => {
      timer = undefined;
      if (messages !== before || ws.readyState !== WebSocket.OPEN) return;
      nudgedAt = messages;
      ws.pong();
    }, NUDGE_AFTER_MS);
    timer.unref();
  };
  ws.on("message", onMessage);
  socket.prependListener("data", onData);
  return {
    dispose(): void {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      ws.off("message", onMessage);
      socket.off("data", onData);
    },
  };
}
