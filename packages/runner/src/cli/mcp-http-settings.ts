/**
 * The flags of `webbrain mcp --port`, checked and resolved before Firefox starts: the port, the
 * address to listen on, the token, the extra Host and Origin values, the session bounds.
 *
 * Invariants:
 * - Every bad value is a UsageError (exit 2) with a one-line message that says what to do;
 *   none of them needs Firefox to be found out.
 * - Listening beyond loopback needs a token the user chose (`--token-file`): a token printed on a
 *   terminal is fine for local clients, not for a network.
 * - A token file other users may read is refused: whoever reads it can drive the browser.
 * - `--profile` is refused with `--port`: each session is a fresh user context, so the profile's
 *   logins would silently not reach it; the message says how to bring them along.
 */
import { lookup } from "node:dns/promises";
import { readFile, stat } from "node:fs/promises";
import { isIP } from "node:net";
import { UsageError } from "../errors.js";
import {
  generateToken,
  isLoopbackAddress,
  isWildcardAddress,
  MIN_TOKEN_LENGTH,
} from "../mcp/mcp-http-access.js";

const MAX_PORT = 65_535;
export const DEFAULT_MCP_HOST = "127.0.0.1";
/** A session nobody used for this long is closed and its user context removed. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_S = 30 * 60;
/** Each session is a user context with its own tabs: a few are plenty for one person's agents. */
export const DEFAULT_MAX_SESSIONS = 8;

export interface McpHttpFlags {
  port?: number;
  host?: string;
  "token-file"?: string;
  "allow-origin"?: string[];
  "allow-host"?: string[];
  "session-idle-timeout"?: number;
  "max-sessions"?: number;
  profile?: string;
}

export interface McpHttpSettings {
  port: number;
  /** The IP to bind (the --host name resolved once, so the check and the bind agree). */
  address: string;
  /** The --host value as given, for messages. */
  host: string;
  loopback: boolean;
  token: string;
  /** True when the token was made here and must be shown to the user once. */
  tokenGenerated: boolean;
  extraHosts: string[];
  extraOrigins: string[];
  maxSessions: number;
  idleTimeoutMs: number;
}

export async function resolveMcpHttpSettings(flags: McpHttpFlags): Promise<McpHttpSettings> {
  const port = flags.port ?? 0;
  if (port > MAX_PORT)
    throw new UsageError(`--port must be 0-${MAX_PORT} (got ${port}); 0 picks any free port.`);
  if (flags.profile !== undefined) {
    throw new UsageError(
      "--profile does not work with --port: every MCP session gets a fresh user context, so the profile's logins would not reach it. " +
        "Save them once with `webbrain state save FILE --profile DIR --url URL` and pass --storage-state FILE (loaded into every session), " +
        "or use stdio (`webbrain mcp --profile DIR`, one session in the profile).",
    );
  }
  const host = flags.host ?? DEFAULT_MCP_HOST;
  const address = await resolveHost(host);
  const loopback = isLoopbackAddress(address);
  if (!loopback && flags["token-file"] === undefined) {
    throw new UsageError(
      `--host ${host} listens beyond this machine: give a token you chose with --token-file FILE ` +
        "(e.g. `openssl rand -hex 32 > FILE`), or leave --host out to stay on 127.0.0.1.",
    );
  }
  const token = flags["token-file"] !== undefined ? await readToken(flags["token-file"]) : generateToken();
  return {
    port,
    address,
    host,
    loopback,
    token,
    tokenGenerated: flags["token-file"] === undefined,
    extraHosts: (flags["allow-host"] ?? []).map(checkHostValue),
    extraOrigins: (flags["allow-origin"] ?? []).map(normalizeOrigin),
    maxSessions: flags["max-sessions"] ?? DEFAULT_MAX_SESSIONS,
    idleTimeoutMs: (flags["session-idle-timeout"] ?? DEFAULT_SESSION_IDLE_TIMEOUT_S) * 1000,
  };
}

/** The warning printed when the server is reachable from other machines. */
export function exposureWarning(settings: McpHttpSettings): string | undefined {
  if (settings.loopback) return undefined;
  const where = isWildcardAddress(settings.address) ? "every network interface" : settings.address;
  return (
    `webbrain mcp: warning: listening on ${where}, reachable from other machines. Every request needs the token, ` +
    "but plain HTTP carries it in clear text: use a trusted network or a TLS proxy, and --allow-host for the name clients use."
  );
}

async function resolveHost(host: string): Promise<string> {
  if (isIP(host.replace(/^\[|\]$/g, ""))) return host.replace(/^\[|\]$/g, "");
  try {
    return (await lookup(host)).address;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "lookup failed";
    throw new UsageError(
      `--host ${host}: no such address (${code}). Use 127.0.0.1 (the default) or an address or name of this machine.`,
    );
  }
}

async function readToken(file: string): Promise<string> {
  let text: string;
  try {
    if (((await stat(file)).mode & 0o077) !== 0) {
      throw new UsageError(
        `--token-file ${file}: other users may read it, and the token lets them drive your browser. Run \`chmod 600 ${file}\`.`,
      );
    }
    text = await readFile(file, "utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--token-file ${file}: cannot read it (${(error as NodeJS.ErrnoException).code}).`);
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(token)) {
    throw new UsageError(
      `--token-file ${file}: the token must be at least ${MIN_TOKEN_LENGTH} printable characters without spaces (e.g. \`openssl rand -hex 32 > ${file}\`).`,
    );
  }
  return token;
}

function checkHostValue(value: string): string {
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i.test(value)) {
    throw new UsageError(
      `--allow-host ${value}: give a host name or address, optionally with :PORT (e.g. myhost.lan).`,
    );
  }
  return value;
}

function normalizeOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--allow-origin ${value}: give an origin like http://localhost:6274.`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== value.replace(/\/$/, "")) {
    throw new UsageError(
      `--allow-origin ${value}: give an origin like http://localhost:6274 (scheme, host, port; no path).`,
    );
  }
  return url.origin;
}
