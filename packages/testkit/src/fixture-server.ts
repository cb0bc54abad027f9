/**
 * A static HTTP server for test pages on 127.0.0.1, plus optional dynamic routes.
 *
 * Invariants:
 * - Binds 127.0.0.1 on an OS-chosen port; `origin` (127.0.0.1) and `crossOrigin` (localhost) reach
 *   the same server under two origins, for cross-origin iframe tests.
 * - Serves files only from inside `root` (paths escaping it get 403); unknown paths get 404.
 * - Responses are `no-store` so Firefox never serves a stale fixture between tests.
 * - `close()` also drops keep-alive sockets, so it never waits on an idle browser connection.
 * - `requests` logs every request as it arrives (routes and files alike), for tests that prove
 *   something was never fetched.
 */
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export type FixtureRoute = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** A route's request body as text, once it has all arrived (POST handlers of fixture APIs). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

/** A route's JSON request body, parsed (a test's fixture API records what the page sent). */
export async function readJsonBody<T>(req: IncomingMessage): Promise<T> {
  return JSON.parse(await readBody(req)) as T;
}

/** A route's form body (application/x-www-form-urlencoded) as name -> value. */
export async function readFormBody(req: IncomingMessage): Promise<Record<string, string>> {
  return Object.fromEntries(new URLSearchParams(await readBody(req)));
}

/**
 * `/api/signup` of the recording fixtures (fixtures/record/): keeps each posted form in `into`
 * and answers a "Welcome, NAME" page, so the form's submit is a navigation to a new document.
 */
export function signupRoute(into: Record<string, string>[]): FixtureRoute {
  return async (req, res) => {
    const form = await readFormBody(req);
    into.push(form);
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>Welcome</title><h1>Welcome, ${escapeHtml(form.full_name ?? "?")}</h1>`);
  };
}

/**
 * A fixture API a page posts JSON to (the order form's `/api/orders`, a newsletter, a product):
 * keeps each body in `into`, so the test asserts on what the page sent, and answers 201
 * `{"ok":true}`.
 */
export function collectJsonRoute(into: Record<string, unknown>[]): FixtureRoute {
  return async (req, res) => {
    into.push(await readJsonBody<Record<string, unknown>>(req));
    res.writeHead(201, { "content-type": "application/json" }).end('{"ok":true}');
  };
}

/**
 * Where the upload fixtures send a file (`/upload-sink`): keeps each request's URL and body, and
 * answers with the body's size, which the page shows (so a test reads it as the page did).
 */
export function uploadSinkRoute(received: { url: string; body: string }[]): FixtureRoute {
  return async (req, res) => {
    const body = await readBody(req);
    received.push({ url: req.url ?? "", body });
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`server got ${Buffer.byteLength(body)} bytes`);
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface FixtureServerOptions {
  /** Directory served; default packages/testkit/fixtures. */
  root?: string;
  /** Exact-path handlers (without query), checked before files, e.g. {"/api/slow": handler}. */
  routes?: Record<string, FixtureRoute>;
}

export interface FixtureServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** http://localhost:PORT: the same server under another origin. */
  crossOrigin: string;
  port: number;
  /** Every request received so far, in order: method and URL as sent (path and query). */
  requests: { method: string; url: string }[];
  /** Absolute URL on `origin` for a path like "/forms/login.html". */
  url(path: string): string;
  close(): Promise<void>;
}

export const DEFAULT_FIXTURES_ROOT = fileURLToPath(new URL("../fixtures/", import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".gif": "image/gif",
  ".txt": "text/plain; charset=utf-8",
  ".pdf": "application/pdf",
  ".woff2": "font/woff2",
};

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  res.end(body);
}

async function serveFile(root: string, pathname: string, res: ServerResponse): Promise<void> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    send(res, 400, "bad path encoding");
    return;
  }
  let file = resolve(root, `.${normalize(decoded)}`);
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) {
    send(res, 403, "outside the fixture root");
    return;
  }
  try {
    if ((await stat(file)).isDirectory()) file = join(file, "index.html");
    const body = await readFile(file);
    res.writeHead(200, {
      "content-type": CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream",
      "content-length": body.length,
      "cache-control": "no-store",
    });
    res.end(body);
  } catch {
    send(res, 404, `no fixture at ${pathname}`);
  }
}

export function startFixtureServer(opts: FixtureServerOptions = {}): Promise<FixtureServer> {
  const root = resolve(opts.root ?? DEFAULT_FIXTURES_ROOT);
  const routes = opts.routes ?? {};
  const requests: FixtureServer["requests"] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? "GET", url: req.url ?? "/" });
    const pathname = new URL(req.url ?? "/", "http://fixture.invalid").pathname;
    const route = routes[pathname];
    const handled = route ? route(req, res) : serveFile(root, pathname, res);
    void Promise.resolve(handled).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, `fixture route ${pathname} threw: ${String(err)}`);
      else res.destroy();
    });
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.removeListener("error", reject);
      const { port } = server.address() as AddressInfo;
      const origin = `http://127.0.0.1:${port}`;
      let closing: Promise<void> | undefined;
      resolvePromise({
        origin,
        crossOrigin: `http://localhost:${port}`,
        port,
        requests,
        url: (path) => new URL(path, origin).toString(),
        close: () => {
          closing ??= new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}
