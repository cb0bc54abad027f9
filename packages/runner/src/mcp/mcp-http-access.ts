/**
 * Who may talk to `webbrain mcp --port`: the Host and Origin a request may carry, and the bearer
 * token it must present. The tools behind this server drive a browser that may be logged in and
 * can read local files, so a web page must never reach it (DNS rebinding, a page's `fetch()` to
 * 127.0.0.1) and neither may another local user or process that does not hold the token.
 *
 * Invariants:
 * - Host must be one of the allowed `name:port` values (loopback names and the listening
 *   address by default, plus `--allow-host`); anything else is 403, before the token is looked at.
 * - Origin, when a request has one (browsers always send it on cross-origin requests), must be
 *   the server's own loopback origin or one given with `--allow-origin`; anything else is 403.
 * - Every other request needs `Authorization: Bearer TOKEN`, compared in constant time; without
 *   it the answer is 401 with a `WWW-Authenticate` header.
 * - CORS headers go only to origins the user allowed explicitly, so no other page can read an
 *   answer even if it could send a request.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIPv6 } from "node:net";

/** 32 random bytes: a token nobody guesses, printed once per start. */
const GENERATED_TOKEN_BYTES = 32;
/** A token from a file shorter than this is refused: it could be guessed. */
export const MIN_TOKEN_LENGTH = 16;
/** Header names a browser-based client (allowed with --allow-origin) may send and must read. */
const CORS_ALLOW_HEADERS =
  "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id";
const CORS_EXPOSE_HEADERS = "mcp-session-id, mcp-protocol-version, www-authenticate";
const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"] as const;

export function generateToken(): string {
  return randomBytes(GENERATED_TOKEN_BYTES).toString("base64url");
}

/** True for addresses only this machine can reach (127.0.0.0/8, ::1, IPv4-mapped 127.x). */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "::1") return true;
  const v4 = bare.startsWith("::ffff:") ? bare.slice("::ffff:".length) : bare;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** `host:port` as it appears in a Host header or URL (IPv6 in brackets). */
export function hostWithPort(host: string, port: number): string {
  const name = isIPv6(host) ? `[${host}]` : host;
  return `${name}:${port}`.toLowerCase();
}

export interface AccessPolicyOptions {
  port: number;
  /** The --host name and the address it resolved to; allowed as Hosts unless wildcards (0.0.0.0, ::). */
  listenHosts: readonly string[];
  /** `--allow-host` values: NAME or NAME:PORT. */
  extraHosts: readonly string[];
  /** `--allow-origin` values, already normalized to `scheme://host[:port]`. */
  extraOrigins: readonly string[];
  token: string;
}

export type AccessVerdict =
  | { ok: true }
  | { ok: false; status: 401 | 403; message: string; headers?: Record<string, string> };

export class AccessPolicy {
  /** Exact `host:port` values, lower-case; also handed to the SDK's transport. */
  readonly allowedHosts: readonly string[];
  /** Exact origins; also handed to the SDK's transport. */
  readonly allowedOrigins: readonly string[];
  readonly #corsOrigins: ReadonlySet<string>;
  readonly #tokenDigest: Buffer;

  constructor(options: AccessPolicyOptions) {
    const { port } = options;
    const names: string[] = [...LOOPBACK_NAMES];
    names.push(...options.listenHosts.filter((host) => !isWildcardAddress(host)));
    const hosts = new Set(names.map((name) => hostWithPort(name, port)));
    for (const extra of options.extraHosts) {
      hosts.add(/:\d+$/.test(extra) && !isIPv6(extra) ? extra.toLowerCase() : hostWithPort(extra, port));
    }
    // A client on port 80 may leave the port out of the Host header.
    if (port === 80) for (const host of [...hosts]) hosts.add(host.replace(/:80$/, ""));
    this.allowedHosts = [...hosts];
    this.#corsOrigins = new Set(options.extraOrigins);
    this.allowedOrigins = [
      ...LOOPBACK_NAMES.map((name) => `http://${name}:${port}`),
      ...options.extraOrigins,
    ];
    this.#tokenDigest = digest(options.token);
  }

  /** Host and Origin: the DNS-rebinding and cross-site defence, checked before anything else. */
  checkSource(req: IncomingMessage): AccessVerdict {
    // Compared as sent, like the SDK transport does with the same list, so the two never disagree.
    const host = req.headers.host;
    if (!host || !this.allowedHosts.includes(host)) {
      return {
        ok: false,
        status: 403,
        message: `Host ${host ?? "(none)"} is not allowed: connect to ${this.allowedHosts[0]} (add a name with --allow-host).`,
      };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.includes(origin)) {
      return {
        ok: false,
        status: 403,
        message: `Origin ${origin} is not allowed: web pages may not use this server (a browser-based client needs --allow-origin ${origin}).`,
      };
    }
    return { ok: true };
  }

  /** The bearer token, compared in constant time (digests of equal length). */
  checkToken(req: IncomingMessage): AccessVerdict {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) {
      return {
        ok: false,
        status: 401,
        message:
          "Authorization required: send `Authorization: Bearer TOKEN` (the token webbrain mcp printed at start, or the one in --token-file).",
        headers: { "www-authenticate": 'Bearer realm="webbrain-mcp"' },
      };
    }
    if (!timingSafeEqual(digest(match[1]), this.#tokenDigest)) {
      return {
        ok: false,
        status: 401,
        message:
          "The bearer token is wrong: use the one webbrain mcp printed at this start, or the one in --token-file.",
        headers: { "www-authenticate": 'Bearer realm="webbrain-mcp", error="invalid_token"' },
      };
    }
    return { ok: true };
  }

  /** CORS response headers, only for an origin the user allowed with --allow-origin. */
  corsHeaders(req: IncomingMessage): Record<string, string> {
    const origin = req.headers.origin;
    if (!origin || !this.#corsOrigins.has(origin)) return {};
    return {
      "access-control-allow-origin": origin,
      "access-control-expose-headers": CORS_EXPOSE_HEADERS,
      vary: "Origin",
    };
  }

  /** A CORS preflight from an allowed origin: what it may send. Undefined for anyone else. */
  preflightHeaders(req: IncomingMessage): Record<string, string> | undefined {
    const cors = this.corsHeaders(req);
    if (!cors["access-control-allow-origin"]) return undefined;
    return {
      ...cors,
      "access-control-allow-methods": "GET, POST, DELETE",
      "access-control-allow-headers": CORS_ALLOW_HEADERS,
      "access-control-max-age": "600",
    };
  }
}

export function isWildcardAddress(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
