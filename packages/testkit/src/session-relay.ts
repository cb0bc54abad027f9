/**
 * Lends a BiDi session that a test already holds to a second client, over a WebSocket of its
 * own: each frame the client sends is run on the held session and answered, and the session's
 * events go to the client. Firefox allows one session per browser and (for sessions opened over
 * WebSocket) no second connection to it, so this is how a test lets a process it starts (the
 * add-on's companion) act in the browser its harness drives. fake-grid.ts relays the same way.
 *
 * The lent URL has the `/session/<id>` shape, so @webbrain/bidi's connectBidi sends no
 * `session.new` on it and ends nothing when it disconnects.
 */
import type { AddressInfo } from "node:net";
import { ALL_EVENTS, type BidiClient } from "@webbrain/bidi";
import { sendAnswerFrame } from "@webbrain/bidi/batch";
import { type WebSocket, WebSocketServer } from "ws";

/** Runs a connected socket's frames on `client` and forwards its events, until either side closes. */
export function relayFrames(
  ws: WebSocket,
  client: BidiClient,
  onMethod: (method: string) => void = () => {},
): void {
  const offEvents = client.on(ALL_EVENTS, (_params, raw) => ws.send(JSON.stringify(raw)));
  ws.on("message", (data) => {
    const frame = JSON.parse(String(data)) as { id: number; method: string; params: unknown };
    onMethod(frame.method);
    void sendAnswerFrame(client, frame).then(
      (answer) => ws.send(JSON.stringify(answer)),
      () => ws.close(1011, "browser gone"),
    );
  });
  ws.on("close", offEvents);
}

export interface SessionRelay {
  /** ws://127.0.0.1:PORT/session/lent */
  url: string;
  /** Methods relayed, in order. */
  relayedMethods: string[];
  /** How many sockets are open now. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * Starts the relay; `client` is read at each connection, so the relay may be started (and its URL
 * given to a browser's environment) before the browser it relays to is launched.
 */
export async function startSessionRelay(client: () => BidiClient): Promise<SessionRelay> {
  const relayedMethods: string[] = [];
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, path: "/session/lent" });
  wss.on("connection", (ws) => relayFrames(ws, client(), (method) => relayedMethods.push(method)));
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const { port } = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/session/lent`,
    relayedMethods,
    get connections() {
      return wss.clients.size;
    },
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
