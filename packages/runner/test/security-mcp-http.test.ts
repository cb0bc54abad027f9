/**
 * Attacks on `webbrain mcp --port`, run against the real bin over real HTTP with real Firefox:
 * - DNS rebinding (Host/Origin of an attacker's name) and a web page's `fetch()` from another
 *   loopback port are refused, and no session or user context comes of them;
 * - requests without the bearer token, or with a wrong one, get 401;
 * - malformed, oversized and otherwise bad requests get their JSON-RPC HTTP codes, not 500;
 * - sessions are capped and idle-expire, freeing their user context;
 * - bad flags (port, host, non-loopback without a token file, --profile) are one-line usage
 *   errors before Firefox starts.
 * What the server did is read from its stderr log: one line per refused request, one per user
 * context it asks Firefox for ("user context ID created"), one per session ended ("user context
 * ID removed").
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FirefoxProcess } from "@webbrain/bidi";
import { type FixtureServer, startFixtureServer, waitFor } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliFirefox } from "./cli-firefox.js";
import { BIN, mcpResultText, runMain } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 300_000;
/** The SDK's 60 s default is too short for a session's first page on a loaded two-core machine. */
const MCP_REQUEST = { timeout: 150_000 };
/** Bound on waiting for the server to log an event (Firefox work on a loaded machine). */
const LOG_WAIT = { timeoutMs: 90_000, intervalMs: 100 };
/** Long enough that the first session is still live when the second initialize comes. */
const IDLE_TIMEOUT_S = 5;
/** Logged when the server asks Firefox for a user context, whatever becomes of it. */
const CREATED = /user context \S+ created/g;

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "attacker", version: "1" } },
});
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/**
 * A hostile page: from its own loopback origin it POSTs an initialize to the MCP server in three
 * ways a page can (a CORS "simple" request, no-cors, and a preflighted JSON request carrying a
 * token given in its query, as if it had leaked), and prints what each got.
 */
const ATTACK_PAGE = `<!doctype html><title>attack</title><pre id="out">running</pre><script>
const query = new URLSearchParams(location.search);
const target = query.get("target");
const token = query.get("token") || "guess";
const init = ${JSON.stringify(INITIALIZE)};
const lines = [];
async function attempt(name, init2) {
  try {
    const r = await fetch(target, init2);
    lines.push("attempt " + name + ": status " + r.status + " session " + (r.headers.get("mcp-session-id") ? "yes" : "no"));
  } catch (e) { lines.push("attempt " + name + ": " + e.name); }
}
(async () => {
  await attempt("simple", { method: "POST", headers: { "content-type": "text/plain" }, body: init });
  await attempt("no-cors", { method: "POST", mode: "no-cors", body: init });
  await attempt("json", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: "Bearer " + token }, body: init });
  document.getElementById("out").textContent = lines.join("\\n") + "\\nattempts done";
})();
</script>`;

let fixtures: FixtureServer;
let work: string;
/**
 * The Firefox both servers reach with --connect, one after the other (each ends its session when
 * stopped): how the server gets its browser is not what this file tests.
 */
let firefox: FirefoxProcess | undefined;

beforeAll(async () => {
  firefox = await startCliFirefox();
  fixtures = await startFixtureServer({
    routes: {
      "/mcp-attack.html": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
        res.end(ATTACK_PAGE);
      },
    },
  });
  work = await mkdtemp(join(tmpdir(), "webbrain-mcp-security-"));
});

afterAll(async () => {
  await fixtures?.close();
  if (work) await rm(work, { recursive: true, force: true });
  await firefox?.dispose(0);
});

describe("webbrain mcp --port: who may reach it", () => {
  let server: HttpMcp;

  beforeAll(async () => {
    // The fixture server's second origin (localhost:PORT) plays a browser-based client the user allowed.
    server = await startHttpMcp(["--port", "0", "--allow-origin", fixtures.crossOrigin]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await server?.stop();
  });

  it("refuses a DNS-rebinding initialize (Host and Origin of evil.example) with 403, even with the token", async () => {
    const port = new URL(server.endpoint).port;
    const rebound = await post(server.endpoint, INITIALIZE, {
      ...MCP_HEADERS,
      host: `evil.example:${port}`,
      origin: `http://evil.example:${port}`,
      authorization: `Bearer ${server.token}`,
    });
    expect(rebound.status).toBe(403);
    expect(rebound.headers["mcp-session-id"]).toBeUndefined();
    expect(rebound.json.error.message).toContain(`Host evil.example:${port} is not allowed`);

    // The right Host but a foreign page's Origin: still refused.
    const crossSite = await post(server.endpoint, INITIALIZE, {
      ...MCP_HEADERS,
      origin: "http://evil.example",
      authorization: `Bearer ${server.token}`,
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json.error.message).toContain("Origin http://evil.example is not allowed");
    expect(server.stderr()).toContain(`refused POST /mcp: 403 Host evil.example:${port}`);
    expect(server.stderr()).not.toMatch(CREATED); // no session, no user context
  });

  it("answers 401 with WWW-Authenticate to a request without the token or with a wrong one", async () => {
    const none = await post(server.endpoint, INITIALIZE, MCP_HEADERS);
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toBe('Bearer realm="webbrain-mcp"');
    const wrong = await post(server.endpoint, INITIALIZE, {
      ...MCP_HEADERS,
      authorization: "Bearer not-the-token",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers["www-authenticate"]).toContain('error="invalid_token"');
    expect(wrong.json.error.message).toContain("The bearer token is wrong");
    expect(server.stderr()).not.toMatch(CREATED);
  });

  it("answers bad requests with their HTTP codes: 400 not JSON or not initialize, 413, 415, 405, 404", async () => {
    const auth = { ...MCP_HEADERS, authorization: `Bearer ${server.token}` };
    const malformed = await post(server.endpoint, '{"jsonrpc": "2.0", "method": ', auth);
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.code).toBe(-32700);

    const notInitialize = await post(
      server.endpoint,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      auth,
    );
    expect(notInitialize.status).toBe(400);
    expect(notInitialize.json.error.code).toBe(-32600);

    const oversized = await post(server.endpoint, `"${"a".repeat(5 * 1024 * 1024)}"`, auth);
    expect(oversized.status).toBe(413);
    expect(oversized.json.error.message).toContain("over 4194304 bytes");

    const plainText = await post(server.endpoint, INITIALIZE, { ...auth, "content-type": "text/plain" });
    expect(plainText.status).toBe(415);

    const put = await post(server.endpoint, INITIALIZE, auth, "PUT");
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe("GET, POST, DELETE");

    const unknown = await post(
      server.endpoint,
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      {
        ...auth,
        "mcp-session-id": "no-such-session",
      },
    );
    expect(unknown.status).toBe(404);
    expect(server.stderr()).not.toMatch(CREATED);
  });

  it(
    "a page on another loopback port cannot open a session from real Firefox; an --allow-origin page with the token can",
    async () => {
      const client = await connectClient(server.endpoint, server.token);
      try {
        await waitFor(() => (server.stderr().match(CREATED) ?? []).length === 1, LOG_WAIT);
        // The agent's own session visits a hostile page on 127.0.0.1:FIXTURE_PORT.
        const hostile = `${fixtures.url("/mcp-attack.html")}?target=${encodeURIComponent(server.endpoint)}`;
        const page = await readAfterNavigate(client, hostile);
        expect(page).toContain("attempt simple: TypeError"); // sent, refused 403, unreadable (no CORS)
        expect(page).toContain("attempt no-cors: status 0"); // opaque: nothing learned
        expect(page).toContain("attempt json: TypeError"); // the preflight is refused
        const log = server.stderr();
        expect(log).toContain(`refused POST /mcp: 403 Origin ${fixtures.origin} is not allowed`);
        expect(log).toContain(`refused OPTIONS /mcp: 403 Origin ${fixtures.origin} is not allowed`);
        expect(log.match(CREATED)).toHaveLength(1); // only the agent's own session exists

        // The origin the user allowed, with the token, is a client like any other (CORS answered).
        const allowed = `${fixtures.crossOrigin}/mcp-attack.html?target=${encodeURIComponent(server.endpoint)}&token=${server.token}`;
        const allowedPage = await readAfterNavigate(client, allowed);
        expect(allowedPage).toContain("attempt json: status 200 session yes");
        expect(allowedPage).toContain("attempt simple: status 401 session no"); // readable now, but no token
        await waitFor(() => (server.stderr().match(CREATED) ?? []).length === 2, LOG_WAIT);
      } finally {
        await client.close().catch(() => {});
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe("webbrain mcp --port: session cap and idle expiry, beyond loopback with a token file", () => {
  let server: HttpMcp;
  let tokenFile: string;

  beforeAll(async () => {
    tokenFile = join(work, "token");
    await writeFile(tokenFile, "0123456789abcdef0123456789abcdef\n");
    await chmod(tokenFile, 0o600);
    server = await startHttpMcp(
      [
        "--port",
        "0",
        "--host",
        "0.0.0.0",
        "--token-file",
        tokenFile,
        "--max-sessions",
        "1",
        "--session-idle-timeout",
        String(IDLE_TIMEOUT_S),
      ],
      "0123456789abcdef0123456789abcdef",
    );
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await server?.stop();
  });

  it("warns that it listens beyond loopback, and prints no token (the user's file has it)", () => {
    expect(server.stderr()).toContain(
      "warning: listening on every network interface, reachable from other machines",
    );
    expect(server.stderr()).not.toContain("token for this start");
  });

  it(
    "refuses a session over --max-sessions with 503; an idle session expires, frees its user context and its slot",
    async () => {
      const endpoint = server.endpoint.replace("0.0.0.0", "127.0.0.1");
      const first = await connectClient(endpoint, server.token);
      const firstId = (first.transport as StreamableHTTPClientTransport).sessionId!;
      try {
        const over = await post(endpoint, INITIALIZE, {
          ...MCP_HEADERS,
          authorization: `Bearer ${server.token}`,
        });
        expect(over.status).toBe(503);
        expect(over.json.error.message).toContain("the most --max-sessions allows");
        expect(server.stderr().match(CREATED)).toHaveLength(1);

        const ended = new RegExp(
          `session ${firstId} ended \\(idle for ${IDLE_TIMEOUT_S} s\\); user context \\S+ removed`,
        );
        await waitFor(() => ended.test(server.stderr()), LOG_WAIT);
        const gone = await post(endpoint, JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }), {
          ...MCP_HEADERS,
          authorization: `Bearer ${server.token}`,
          "mcp-session-id": firstId,
          "mcp-protocol-version": "2025-06-18",
        });
        expect(gone.status).toBe(404);
      } finally {
        await first.close().catch(() => {});
      }
      const second = await connectClient(endpoint, server.token); // the freed slot takes a new session
      try {
        const listed = await second.listTools(undefined, MCP_REQUEST);
        expect(listed.tools.map((tool) => tool.name)).toContain("navigate");
      } finally {
        await second.close().catch(() => {});
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

// Asked of main in this process (run-cli.ts runMain): each ends in a usage error before a
// browser starts, so a process start per check would only add time.
describe("webbrain mcp --port: bad flags are one-line usage errors before Firefox starts", () => {
  const expectUsageError = (run: { code: number | null; stderr: string }, text: string) => {
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(text);
    expect(run.stderr.trim().split("\n")).toHaveLength(1); // no stack trace
  };

  it("--tools with a group that does not exist", async () => {
    expectUsageError(
      await runMain(["mcp", "--port", "0", "--tools", "core,tabs"]),
      '--tools "core,tabs": expected a comma list of core, frames',
    );
  });

  it("--port 99999", async () => {
    expectUsageError(await runMain(["mcp", "--port", "99999"]), "--port must be 0-65535 (got 99999)");
  });

  it("--host bad.invalid", async () => {
    expectUsageError(
      await runMain(["mcp", "--port", "0", "--host", "bad.invalid"]),
      "--host bad.invalid: no such address",
    );
  });

  it("a port already in use", async () => {
    expectUsageError(
      await runMain(["mcp", "--port", String(fixtures.port)]),
      `--port ${fixtures.port}: already in use`,
    );
  });

  it("--host 0.0.0.0 without --token-file", async () => {
    expectUsageError(
      await runMain(["mcp", "--port", "0", "--host", "0.0.0.0"]),
      "--host 0.0.0.0 listens beyond this machine: give a token you chose with --token-file FILE",
    );
  });

  it("a token file with a short token, or one other users may read", async () => {
    const short = join(work, "short-token");
    await writeFile(short, "abc\n", { mode: 0o600 });
    expectUsageError(
      await runMain(["mcp", "--port", "0", "--token-file", short]),
      "the token must be at least 16 printable characters",
    );
    const shared = join(work, "shared-token");
    await writeFile(shared, "0123456789abcdef0123456789abcdef\n");
    await chmod(shared, 0o644);
    expectUsageError(
      await runMain(["mcp", "--port", "0", "--token-file", shared]),
      `--token-file ${shared}: other users may read it`,
    );
  });

  it("--allow-origin that is not an origin", async () => {
    expectUsageError(
      await runMain(["mcp", "--port", "0", "--allow-origin", "http://localhost:6274/app"]),
      "--allow-origin http://localhost:6274/app: give an origin like http://localhost:6274",
    );
  });

  it("--profile with --port, which would silently drop the profile's logins", async () => {
    const profile = join(work, "never-created-profile");
    const run = await runMain(["mcp", "--port", "0", "--profile", profile]);
    expectUsageError(run, "--profile does not work with --port");
    expect(run.stderr).toContain("--storage-state FILE");
    expect(existsSync(profile)).toBe(false); // Firefox never started on it
  });
});

interface HttpMcp {
  endpoint: string;
  token: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `webbrain mcp` with `args` on the file's Firefox and waits for the line that says where it listens. */
function startHttpMcp(args: string[], knownToken?: string): Promise<HttpMcp> {
  return new Promise((resolve, reject) => {
    const connect = ["--connect", firefox!.wsEndpoint];
    const child: ChildProcess = spawn(process.execPath, [BIN, "mcp", ...args, ...connect], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      });
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
      const endpoint = /serving \S+ tools at (http:\/\/\S+\/mcp);/.exec(stderr)?.[1];
      const token = knownToken ?? /token for this start: (\S+)/.exec(stderr)?.[1];
      if (endpoint && token) resolve({ endpoint, token, stderr: () => stderr, stop });
    });
    child.on("exit", (code) => reject(new Error(`webbrain mcp exited (${code}): ${stderr}`)));
  });
}

async function connectClient(endpoint: string, token: string): Promise<Client> {
  const client = new Client({ name: "webbrain-security-test", version: "0.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport, MCP_REQUEST);
  return client;
}

async function readAfterNavigate(client: Client, url: string): Promise<string> {
  await client.callTool({ name: "navigate", arguments: { url } }, undefined, MCP_REQUEST);
  return waitFor(async () => {
    const text = mcpResultText(
      await client.callTool({ name: "read_page", arguments: {} }, undefined, MCP_REQUEST),
    );
    return text.includes("attempts done") ? text : "";
  }, LOG_WAIT);
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: { error: { code: number; message: string } };
}

/** A raw HTTP request (node:http lets a test set Host, which fetch() does not). */
function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  method = "POST",
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          let json: RawAnswer["json"] = { error: { code: 0, message: "" } };
          try {
            json = JSON.parse(text) as RawAnswer["json"];
          } catch {
            // An SSE answer (a session opened): the test looks at status and headers.
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
