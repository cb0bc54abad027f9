/**
 * `webbrain mcp --port N`: one MCP server over Streamable HTTP (the MCP SDK's transport, with
 * SSE) that serves many independent client sessions, each on a backing of its own: a BiDi user
 * context of one Firefox of ours (separate cookies, storage and tabs; isolated-sessions.ts), or,
 * with --own-firefox, a link of its own to the person's Firefox that they allow in the sidebar.
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
 * - The listener is bound before Firefox starts (mcp-http-listener.ts), so a bad host or port
 *   fails fast with a UsageError; requests before this server takes it are answered 503.
 * - Refusals are logged on stderr, at a bounded rate (a page retrying in a loop floods nothing).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { PermissionApprover } from "@webbrain/agent";
import type { IsolatedSession, SessionBrowser } from "../browser/isolated-sessions.js";
import type { ToolRunner } from "../tools/tool-runner.js";
import type { AccessPolicy, AccessVerdict } from "./mcp-http-access.js";
import {
  answer,
  INVALID_REQUEST,
  MCP_PATH,
  type McpListener,
  PARSE_ERROR,
  SERVER_ERROR,
  SESSION_NOT_FOUND,
} from "./mcp-http-listener.js";
import { type SessionEntry, SessionTable } from "./mcp-http-sessions.js";
import { createMcpServer, type McpToolSource, runnerToolSource } from "./mcp-server.js";
import type { McpToolSelection } from "./mcp-tool-groups.js";

/** What one HTTP session's tools run on, opened for an initialize and closed with the session. */
export interface McpSessionBacking {
  /** How the log names it ("user context 7"). */
  label: string;
  makeSource(approver?: PermissionApprover): McpToolSource;
  close(): Promise<void>;
}

/** Each session in its own user context of `browser`, its first tab on `url`. */
export function userContextBackings(
  browser: SessionBrowser,
  url: string | undefined,
  makeRunner: (session: IsolatedSession, approver?: PermissionApprover) => ToolRunner,
): () => Promise<McpSessionBacking> {
  return async () => {
    const isolated = await browser.openSession(url);
    return {
      label: `user context ${isolated.userContext}`,
      makeSource: (approver) => runnerToolSource(makeRunner(isolated, approver)),
      close: () => isolated.close(),
    };
  };
}

/** A request body larger than this is refused with 413: MCP messages are small. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
const ALLOWED_METHODS = "GET, POST, DELETE";
const REFUSAL_LOG_WINDOW_MS = 10_000;
const REFUSAL_LOG_LINES = 50;
const REFUSAL_LOG_LINE_CHARS = 400;

export interface McpHttpOptions {
  listener: McpListener;
  /** Opens a new session's backing (userContextBackings, or a link to the person's Firefox). */
  openBacking: () => Promise<McpSessionBacking>;
  access: AccessPolicy;
  maxSessions: number;
  idleTimeoutMs: number;
  confirm: boolean;
  /** The tool groups each session lists (`--tools`). */
  tools: McpToolSelection;
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

  const refusals = new RefusalLog(log);
  const refuse = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    code: number,
    message: string,
    headers: Record<string, string> = {},
  ) => {
    refusals.note(`${req.method} ${req.url}: ${status} ${message}`);
    answer(res, status, code, message, headers);
  };
  const newSession = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    let backing: McpSessionBacking;
    try {
      backing = await options.openBacking();
    } catch (error) {
      sessions.release();
      throw error;
    }
    log(`webbrain mcp: ${backing.label} created for an initialize`);
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
            await backing.close();
            log(
              `webbrain mcp: session ${sessionId} ended (${reason}); ${backing.label} removed (${sessions.size} open)`,
            );
          },
        });
        log(`webbrain mcp: session ${sessionId} opened in ${backing.label} (${sessions.size} open)`);
      },
    });
    // Set before connect: the MCP server chains its own onclose after this one.
    transport.onclose = () => {
      if (transport.sessionId) void sessions.end(transport.sessionId, "closed by the client");
    };
    const server = createMcpServer((approver) => backing.makeSource(approver), {
      confirm: options.confirm,
      tools: options.tools,
    });
    await server.connect(transport);
    res.once("close", () => {
      if (id) sessions.settled(id);
    });
    try {
      await transport.handleRequest(req, res, body);
    } finally {
      if (!id) {
        sessions.release(); // The SDK refused the initialize: nothing to keep.
        await backing.close();
        log(`webbrain mcp: ${backing.label} removed: the initialize was refused`);
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

/**
 * At most REFUSAL_LOG_LINES refusal lines per REFUSAL_LOG_WINDOW_MS, each cut to
 * REFUSAL_LOG_LINE_CHARS: a page retrying in a loop (or sending huge headers) must not flood
 * stderr. The first line of the next window says how many were left out.
 */
class RefusalLog {
  readonly #log: (line: string) => void;
  #windowStart = 0;
  #written = 0;
  #skipped = 0;

  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  note(line: string): void {
    const now = Date.now();
    if (now - this.#windowStart >= REFUSAL_LOG_WINDOW_MS) {
      if (this.#skipped > 0)
        this.#log(`webbrain mcp: ${this.#skipped} more refused requests were not logged`);
      this.#windowStart = now;
      this.#written = 0;
      this.#skipped = 0;
    }
    if (this.#written >= REFUSAL_LOG_LINES) {
      this.#skipped++;
      return;
    }
    this.#written++;
    this.#log(`webbrain mcp: refused ${line.slice(0, REFUSAL_LOG_LINE_CHARS)}`);
  }
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
