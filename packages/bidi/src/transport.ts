/**
 * The byte pipe under the BiDi client: one WebSocket carrying JSON text frames.
 *
 * Invariants:
 * - `BidiTransport` is the only seam between the client and the network, so tests and the batch
 *   engine can swap it without touching command logic.
 * - `onClose` fires exactly once, whether the peer closed, the socket errored, or `close()` was
 *   called; after it fired `send` throws.
 * - An answer Firefox holds back for our TCP ACK is released within about a millisecond
 *   (ack-nudge.ts), not after the kernel's delayed-ACK timer.
 */
import WebSocket from "ws";
import { type AckNudge, nudgeAcks } from "./ack-nudge.js";
import { BidiConnectError } from "./errors.js";

/** Largest frame we accept from Firefox: full-page screenshots of long pages are big. */
const MAX_INCOMING_FRAME_BYTES = 512 * 1024 * 1024;
/** How long the WebSocket handshake may take before connect fails. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface BidiTransport {
  /** Sends one text frame. Throws when the transport is closed. */
  send(text: string): void;
  /**
   * Sets the single receiver of incoming text frames. `bytes`, when the transport knows it, is the
   * frame's UTF-8 size as received, so receivers need not count a large text again.
   */
  onMessage(handler: (text: string, bytes?: number) => void): void;
  /** Sets the single receiver of the close notice; called once with the reason. */
  onClose(handler: (reason: Error) => void): void;
  /** Starts an orderly close; resolves once the socket is closed (or after a short grace). */
  close(): Promise<void>;
}

export interface WebSocketTransportOptions {
  connectTimeoutMs?: number;
  /** Extra HTTP headers for the handshake (e.g. auth in front of a Grid). */
  headers?: Record<string, string>;
}

/** How long `close()` waits for the peer's close frame before dropping the socket. */
const CLOSE_GRACE_MS = 1_000;

/** Opens a WebSocket to a BiDi endpoint and resolves once the handshake finished. */
export function connectWebSocketTransport(
  url: string,
  opts: WebSocketTransportOptions = {},
): Promise<BidiTransport> {
  const timeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, {
      perMessageDeflate: false,
      maxPayload: MAX_INCOMING_FRAME_BYTES,
      handshakeTimeout: timeoutMs,
      headers: opts.headers,
    });
    // One outcome per connect. The error listener stays until the socket is open: `terminate()`
    // of a socket still connecting emits 'error' again, and an 'error' with no listener would
    // crash the process (a server that answers the upgrade with plain HTTP did exactly that).
    let settled = false;
    const fail = (detail: string, status?: number) => {
      if (settled) return;
      settled = true;
      reject(new BidiConnectError(`Could not open a WebSocket to ${url}: ${detail}`, url, status));
    };
    const onOpenError = (err: Error) => fail(err.message);
    socket.on("error", onOpenError);
    socket.once("unexpected-response", (_req, res) => {
      fail(
        `the server answered HTTP ${res.statusCode} instead of upgrading to WebSocket, so it is not a` +
          " WebDriver BiDi endpoint. Check the URL (ws://host:port or ws://host:port/session).",
        res.statusCode,
      );
      res.resume(); // drain the body so the socket can close
      socket.terminate();
    });
    // The upgrade response's socket is the TCP (or TLS) stream under the WebSocket.
    let nudge: AckNudge | undefined;
    socket.once("upgrade", (response) => {
      nudge = nudgeAcks(socket, response.socket);
    });
    socket.once("open", () => {
      socket.removeListener("error", onOpenError);
      settled = true;
      resolve(new WebSocketTransport(socket, nudge));
    });
  });
}

class WebSocketTransport implements BidiTransport {
  #socket: WebSocket;
  #messageHandler: (text: string, bytes?: number) => void = () => {};
  #closeHandler: (reason: Error) => void = () => {};
  #closedReason: Error | undefined;
  #closedPromise: Promise<void>;

  constructor(socket: WebSocket, nudge: AckNudge | undefined) {
    this.#socket = socket;
    let markClosed: () => void = () => {};
    this.#closedPromise = new Promise((r) => {
      markClosed = r;
    });
    let lastError: Error | undefined;
    socket.on("message", (data, isBinary) => {
      if (isBinary) return; // BiDi is text-only; binary frames are not ours.
      // ws hands over one Buffer per message (the default binaryType): its length is the UTF-8 size.
      this.#messageHandler(data.toString(), Buffer.isBuffer(data) ? data.length : undefined);
    });
    socket.on("error", (err) => {
      lastError = err;
    });
    socket.on("close", (code, reasonBuf) => {
      nudge?.dispose();
      const reasonText = reasonBuf.toString();
      const detail = lastError
        ? `socket error: ${lastError.message}`
        : `close code ${code}${reasonText ? `, ${reasonText}` : ""}`;
      this.#finish(new Error(`the BiDi WebSocket closed (${detail})`));
      markClosed();
    });
  }

  #finish(reason: Error): void {
    if (this.#closedReason) return;
    this.#closedReason = reason;
    this.#closeHandler(reason);
  }

  send(text: string): void {
    if (this.#closedReason) throw this.#closedReason;
    this.#socket.send(text);
  }

  onMessage(handler: (text: string, bytes?: number) => void): void {
    this.#messageHandler = handler;
  }

  onClose(handler: (reason: Error) => void): void {
    this.#closeHandler = handler;
  }

  async close(): Promise<void> {
    if (this.#socket.readyState === WebSocket.CLOSED) return;
    this.#finish(new Error("the BiDi connection was closed by this client"));
    this.#socket.close(1000);
    const timer = setTimeout(() => this.#socket.terminate(), CLOSE_GRACE_MS);
    await this.#closedPromise;
    clearTimeout(timer);
  }
}
