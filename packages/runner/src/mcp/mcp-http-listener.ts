/**
 * The HTTP listener of `webbrain mcp --port`, bound before Firefox starts so that a bad address
 * or a busy port is a one-line UsageError, not a stack trace after a browser launch; and the
 * JSON-RPC error answer every refusal uses.
 */
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { UsageError } from "../errors.js";
import { hostWithPort } from "./mcp-http-access.js";

export const MCP_PATH = "/mcp";
/** JSON-RPC error codes: the spec's, and the SDK's choice for server-defined ones. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const SERVER_ERROR = -32000;
export const SESSION_NOT_FOUND = -32001;

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface McpListener {
  /** http://HOST:PORT/mcp */
  readonly url: string;
  readonly port: number;
  /** Starts answering requests with `handler` (503 until then). */
  serve(handler: RequestHandler): void;
  close(): Promise<void>;
}

/** Binds `address:port` (an IP, already resolved). Bind failures are UsageErrors that say what to do. */
export async function listenForMcp(address: string, port: number): Promise<McpListener> {
  let handler: RequestHandler = (_req, res) =>
    answer(res, 503, SERVER_ERROR, "webbrain mcp is still starting Firefox; try again in a moment.");
  const http: HttpServer = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, address, () => resolve());
  }).catch((error: NodeJS.ErrnoException) => {
    throw listenError(error, address, port);
  });
  const bound = (http.address() as AddressInfo).port;
  return {
    url: `http://${hostWithPort(address, bound)}${MCP_PATH}`,
    port: bound,
    serve: (next) => {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

function listenError(error: NodeJS.ErrnoException, address: string, port: number): Error {
  switch (error.code) {
    case "EADDRINUSE":
      return new UsageError(
        `--port ${port}: already in use on ${address}. Pick another port, or --port 0 for any free one.`,
      );
    case "EACCES":
      return new UsageError(
        `--port ${port}: this user may not listen there. Use a port above 1023, or --port 0.`,
      );
    case "EADDRNOTAVAIL":
      return new UsageError(
        `--host ${address}: not an address of this machine. Use 127.0.0.1 (the default) or one of this machine's addresses.`,
      );
    default:
      return new UsageError(`Cannot listen on ${address}:${port}: ${error.message}`);
  }
}

export function answer(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
