/**
 * `webbrain mcp --port N`: one MCP server over Streamable HTTP (the MCP SDK's transport, with
 * SSE) that serves many independent client sessions, each in its own BiDi user context of one
 * Firefox: separate cookies, storage and tabs (isolated-sessions.ts).
 *
 * Invariants:
 * - Every request passes the access policy first (mcp-http-access.ts): Host and Origin (403),
 *   then the bearer token (401). Each session's SDK transport also has the SDK's own DNS-rebinding
 *   protection on, with the same lists.
 * - A user context is created only for an authenticated POST whose body is a valid initialize
 *   request, and only while fewer than `maxSessions` sessions are open (else 503). Refused
 *   requests never touch Firefox.
 * - Bad requests get JSON-RPC errors with their HTTP codes: 400 (not JSON, not JSON-RPC, no
 *   session), 404 (unknown path or session), 405, 406, 413 (body over MAX_BODY_BYTES), 415.
 * - A session ends on the client's DELETE, after `idleTimeoutMs` without a request, or when the
 *   server stops; its user context is removed with it (mcp-http-sessions.ts).
 * - The listener is bound before Firefox starts (`listenForMcp`), so a bad host or port fails
 *   fast with a UsageError; requests before `serve` are answered 503.
 */
import { randomUUID } from "node:crypto";
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { PermissionApprover } from "@webbrain/agent";
import { UsageError } from "./errors.js";
import type { IsolatedSession, SessionBrowser } from "./isolated-sessions.js";
import { type AccessPolicy, type AccessVerdict, hostWithPort } from "./mcp-http-access.js";
import { type SessionEntry, SessionTable } from "./mcp-http-sessions.js";
import { createMcpServer } from "./mcp-server.js";
import type { ToolRunner } from "./tool-runner.js";

/** A request body larger than this is refused with 413: MCP messages are small. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MCP_PATH = "/mcp";
const ALLOWED_METHODS = "GET, POST, DELETE";
/** JSON-RPC error codes: the spec's, and the SDK's choice for server-defined ones. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const SERVER_ERROR = -32000;
const SESSION_NOT_FOUND = -32001;

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

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

export interface McpHttpOptions {
  listener: McpListener;
  browser: SessionBrowser;
  access: AccessPolicy;
  maxSessions: number;
  idleTimeoutMs: number;
  /** Page each new session opens first. */
  url?: string;
  confirm: boolean;
  makeRunner: (session: IsolatedSession, approver?: PermissionApprover) => ToolRunner;
  log: (line: string) => void;
}

export interface McpHttpServer {
  /** http://HOST:PORT/mcp */
  url: string;
  close(): Promise<void>;
}

interface LiveSession extends SessionEntry {
  transport: StreamableHTTPServerTransport;
}

export function startMcpHttpServer(options: McpHttpOptions): McpHttpServer {
  const { access, log } = options;
  const sessions = new SessionTable<LiveSession>({
    maxSessions: options.maxSessions,
    idleTimeoutMs: options.idleTimeoutMs,
  });

  const refuse = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    code: number,
    message: string,
    headers = {},
  ) => {
    log(`webbrain mcp: refused ${req.method} ${req.url}: ${status} ${message}`);
    answer(res, status, code, message, headers);
  };

  const newSession = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    let isolated: IsolatedSession;
    try {
      isolated = await options.browser.openSession(options.url);
    } catch (error) {
      sessions.release();
      throw error;
    }
    log(`webbrain mcp: user context ${isolated.userContext} created for an initialize`);
    let id: string | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts: [...access.allowedHosts],
      allowedOrigins: [...access.allowedOrigins],
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: (sessionId) => {
        id = sessionId;
        sessions.add(sessionId, {
          transport,
          close: async (reason) => {
            await transport.close().catch(() => {});
            await isolated.close();
            log(
              `webbrain mcp: session ${sessionId} ended (${reason}); user context ${isolated.userContext} removed (${sessions.size} open)`,
            );
          },
        });
        log(
          `webbrain mcp: session ${sessionId} opened in user context ${isolated.userContext} (${sessions.size} open)`,
        );
      },
    });
    // Set before connect: the MCP server chains its own onclose after this one.
    transport.onclose = () => {
      if (transport.sessionId) void sessions.end(transport.sessionId, "closed by the client");
    };
    const server = createMcpServer((approver) => options.makeRunner(isolated, approver), options.confirm);
    await server.connect(transport);
    res.once("close", () => {
      if (id) sessions.settled(id);
    });
    try {
      await transport.handleRequest(req, res, body);
    } finally {
      if (!id) {
        sessions.release(); // The SDK refused the initialize: nothing to keep.
        await isolated.close();
        log(`webbrain mcp: user context ${isolated.userContext} removed: the initialize was refused`);
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const verdict = passes(access.checkSource(req));
    if (verdict) return refuse(req, res, verdict.status, SERVER_ERROR, verdict.message);
    for (const [name, value] of Object.entries(access.corsHeaders(req))) res.setHeader(name, value);
    if (req.method === "OPTIONS") {
      const preflight = access.preflightHeaders(req);
      if (!preflight)
        return refuse(
          req,
          res,
          405,
          SERVER_ERROR,
          "OPTIONS is only for CORS preflights of an --allow-origin origin.",
          { allow: ALLOWED_METHODS },
        );
      res.writeHead(204, preflight);
      return void res.end();
    }
    const denied = passes(access.checkToken(req));
    if (denied) return refuse(req, res, denied.status, SERVER_ERROR, denied.message, denied.headers);
    const path = new URL(req.url ?? "/", "http://mcp.invalid").pathname;
    if (path !== MCP_PATH) return refuse(req, res, 404, SERVER_ERROR, `The MCP endpoint is ${MCP_PATH}.`);
    if (req.method !== "GET" && req.method !== "POST" && req.method !== "DELETE") {
      return refuse(
        req,
        res,
        405,
        SERVER_ERROR,
        `Method ${req.method} is not allowed; use ${ALLOWED_METHODS}.`,
        { allow: ALLOWED_METHODS },
      );
    }
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    let body: unknown;
    if (req.method === "POST") {
      const problem = postHeaderProblem(req);
      if (problem) return refuse(req, res, problem.status, SERVER_ERROR, problem.message);
      const read = await readBody(req, MAX_BODY_BYTES);
      if (read.tooLarge) {
        return refuse(
          req,
          res,
          413,
          SERVER_ERROR,
          `The request body is over ${MAX_BODY_BYTES} bytes; MCP messages are small.`,
        );
      }
      try {
        body = JSON.parse(read.text);
      } catch {
        return refuse(req, res, 400, PARSE_ERROR, "Parse error: the request body is not JSON.");
      }
    }
    if (sessionId) {
      const live = sessions.get(sessionId);
      if (!live) {
        return refuse(
          req,
          res,
          404,
          SESSION_NOT_FOUND,
          `No MCP session ${sessionId}: it ended or expired. Initialize a new one.`,
        );
      }
      // The event stream a client keeps open (GET) is not work: only other requests keep a session.
      if (req.method !== "GET") {
        sessions.started(sessionId);
        res.once("close", () => sessions.settled(sessionId));
      }
      return live.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST") {
      return refuse(req, res, 400, INVALID_REQUEST, "No mcp-session-id: send an initialize request first.");
    }
    if (!isInitializeRequest(body)) {
      return refuse(
        req,
        res,
        400,
        INVALID_REQUEST,
        "Invalid Request: without an mcp-session-id the body must be one valid initialize request.",
      );
    }
    if (!sessions.reserve()) {
      return refuse(
        req,
        res,
        503,
        SERVER_ERROR,
        `${sessions.maxSessions} MCP sessions are open, the most --max-sessions allows: close one (DELETE), or wait for an idle one to expire.`,
      );
    }
    return newSession(req, res, body);
  };

  options.listener.serve((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      log(`webbrain mcp: request failed: ${message}`);
      if (!res.headersSent) answer(res, 500, SERVER_ERROR, message);
      else res.destroy();
    });
  });

  return {
    url: options.listener.url,
    close: async () => {
      for (const id of sessions.ids()) await sessions.end(id, "server stopping");
      await options.listener.close();
    },
  };
}

function passes(verdict: AccessVerdict): Exclude<AccessVerdict, { ok: true }> | undefined {
  return verdict.ok ? undefined : verdict;
}

/** What the SDK transport would refuse in a POST's headers, checked before a session exists. */
function postHeaderProblem(req: IncomingMessage): { status: 406 | 415; message: string } | undefined {
  const type = req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    return { status: 415, message: "Unsupported Media Type: Content-Type must be application/json." };
  }
  const accept = req.headers.accept ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return {
      status: 406,
      message: "Not Acceptable: Accept must list application/json and text/event-stream.",
    };
  }
  return undefined;
}

function answer(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/**
 * The body as text, holding at most `maxBytes`. Past the cap the rest is read and dropped (not
 * kept), so the client finishes sending and can read the 413; a declared Content-Length over the
 * cap is refused without reading.
 */
function readBody(
  req: IncomingMessage,
  maxBytes: number,
): Promise<{ tooLarge: true } | { tooLarge: false; text: string }> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > maxBytes) {
    req.resume();
    return Promise.resolve({ tooLarge: true });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on("end", () =>
      resolve(
        size > maxBytes
          ? { tooLarge: true }
          : { tooLarge: false, text: Buffer.concat(chunks).toString("utf8") },
      ),
    );
    req.on("error", reject);
  });
}
