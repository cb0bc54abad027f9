/**
 * `webbrain mcp --port N`: one MCP server over Streamable HTTP (the MCP SDK's transport, with
 * SSE) that serves many independent client sessions, each in its own BiDi user context of one
 * Firefox: separate cookies, storage and tabs (isolated-sessions.ts).
 *
 * Invariants:
 * - A POST without an `mcp-session-id` header must be an initialize request; it creates a
 *   session (user context + tab + MCP server). Every other request names a live session or is
 *   answered 404 (unknown session) / 400 (no session), as the MCP spec says.
 * - A session ends on the client's DELETE, on transport close, or when the server stops; its
 *   user context is removed with it.
 * - Listens on 127.0.0.1 unless told otherwise: the tools drive a browser that may be logged in.
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
import type { IsolatedSession, SessionBrowser } from "./isolated-sessions.js";
import { createMcpServer } from "./mcp-server.js";
import type { ToolRunner } from "./tool-runner.js";

export interface McpHttpOptions {
  browser: SessionBrowser;
  host: string;
  port: number;
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

/** A request body larger than this is refused: MCP messages are small. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

interface LiveSession {
  transport: StreamableHTTPServerTransport;
  isolated: IsolatedSession;
}

export async function startMcpHttpServer(options: McpHttpOptions): Promise<McpHttpServer> {
  const sessions = new Map<string, LiveSession>();

  const endSession = async (id: string) => {
    const live = sessions.get(id);
    if (!live) return;
    sessions.delete(id);
    await live.isolated.close();
    options.log(`webbrain mcp: session ${id} closed (${sessions.size} open)`);
  };

  const newSession = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const isolated = await options.browser.openSession(options.url);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, isolated });
        options.log(`webbrain mcp: session ${id} opened in user context ${isolated.userContext}`);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) void endSession(transport.sessionId);
      else void isolated.close();
    };
    const server = createMcpServer((approver) => options.makeRunner(isolated, approver), options.confirm);
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId) await isolated.close(); // The initialize failed: nothing to keep.
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://mcp.invalid").pathname;
    if (path !== "/mcp") return answer(res, 404, "The MCP endpoint is /mcp.");
    const id = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(id) ? id[0] : id;
    const body = req.method === "POST" ? await readJson(req) : undefined;
    if (sessionId) {
      const live = sessions.get(sessionId);
      if (!live) return answer(res, 404, `No MCP session ${sessionId}; it ended. Initialize a new one.`);
      await live.transport.handleRequest(req, res, body);
      if (req.method === "DELETE") await endSession(sessionId);
      return;
    }
    if (req.method === "POST" && isInitializeRequest(body)) return newSession(req, res, body);
    return answer(res, 400, "No mcp-session-id: send an initialize request first.");
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log(`webbrain mcp: request failed: ${(error as Error).message}`);
      if (!res.headersSent) answer(res, 500, (error as Error).message);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/mcp`,
    close: async () => {
      for (const id of [...sessions.keys()]) {
        await sessions
          .get(id)
          ?.transport.close()
          .catch(() => {});
        await endSession(id);
      }
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

function answer(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}
