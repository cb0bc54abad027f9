/**
 * The companion's door for `webbrain mcp --own-firefox`: a Unix socket in a folder only this user may
 * open, one JSON object per line (attach-messages.ts in @webbrain/protocol). Each connection is a
 * client with a number; its lines go to the add-on as CompanionEvents, and the add-on's answers
 * come back through `send`. The companion itself decides nothing about a client.
 *
 * Invariants:
 * - The folder is this user's, 0700, and nobody else may write it (checked, never loosened: a
 *   folder another user can write would let them put their own socket where clients look); the
 *   socket is 0600.
 * - A line past MAX_LINE_BYTES ends that client (it could not be relayed: Firefox drops a host
 *   whose message passes 1 MiB); a line that is not a client message is ignored.
 * - `stop` closes every client and removes the socket file: nothing is left behind.
 */
import { chmod, lstat, mkdir, unlink } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ATTACH_SOCKET_PREFIX,
  ATTACH_SOCKET_SUFFIX,
  type AttachClientMessage,
  type AttachServerMessage,
  type CompanionEvent,
} from "@webbrain/protocol";
import { ATTACH_SOCKETS, sweepDeadCompanionLeftovers } from "./dead-companion-leftovers.js";
import { readJsonLines } from "./json-lines.js";

/** Under Firefox's 1 MiB limit for one host message, with room for the event around the line. */
const MAX_LINE_BYTES = 512 * 1024;
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_SOCKET_MODE = 0o600;

/** `$XDG_RUNTIME_DIR/webbrain` (a per-user tmpfs on systemd), else `<tmp>/webbrain-<uid>`. */
export function attachSocketDir(env: Record<string, string | undefined> = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime) return join(runtime, "webbrain");
  return join(tmpdir(), `webbrain-${process.getuid?.() ?? "user"}`);
}

export function attachSocketPath(dir: string, pid: number = process.pid): string {
  return join(dir, `${ATTACH_SOCKET_PREFIX}${pid}${ATTACH_SOCKET_SUFFIX}`);
}

export class AttachFolderError extends Error {
  override readonly name = "AttachFolderError";
}

/** Makes (or checks) the socket folder: this user's, a folder, nobody else may open it. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const info = await lstat(dir);
  const uid = process.getuid?.();
  if (!info.isDirectory()) throw new AttachFolderError(`${dir} is not a folder; remove it and start again.`);
  if (uid !== undefined && info.uid !== uid)
    throw new AttachFolderError(
      `${dir} belongs to another user; attach sockets live only in a folder of yours.`,
    );
  if ((info.mode & 0o077) !== 0)
    throw new AttachFolderError(
      `${dir} may be opened by other users (mode ${(info.mode & 0o777).toString(8)}); run \`chmod 700 ${dir}\` and start again.`,
    );
}

function isClientMessage(value: unknown): value is AttachClientMessage {
  if (typeof value !== "object" || value === null) return false;
  const { type, id } = value as { type?: unknown; id?: unknown };
  if (type === "attach") return true;
  return (type === "list_tools" || type === "call_tool" || type === "cancel") && typeof id === "number";
}

export class AttachSocketServer {
  readonly path: string;
  readonly #server: Server;
  readonly #clients = new Map<number, Socket>();
  #next = 1;

  private constructor(path: string, server: Server) {
    this.path = path;
    this.#server = server;
  }

  /** Listens at `<dir>/companion-<pid>.sock`; each client's lines and its end go to `onEvent`. */
  static async listen(dir: string, onEvent: (event: CompanionEvent) => void): Promise<AttachSocketServer> {
    await ensurePrivateDir(dir);
    const path = attachSocketPath(dir);
    // A socket file of a companion with our pid that died is stale: nobody answers there. So
    // are those of companions that died (with a killed Firefox) before removing theirs.
    await unlink(path).catch(() => undefined);
    await sweepDeadCompanionLeftovers(dir, ATTACH_SOCKETS);
    let self: AttachSocketServer | undefined;
    const server = createServer((socket) => {
      if (self) self.#accept(socket, onEvent);
      else socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => {
        server.off("error", reject);
        resolve();
      });
    });
    await chmod(path, PRIVATE_SOCKET_MODE);
    self = new AttachSocketServer(path, server);
    return self;
  }

  #accept(socket: Socket, onEvent: (event: CompanionEvent) => void): void {
    const client = this.#next++;
    this.#clients.set(client, socket);
    readJsonLines(
      socket,
      (value) => {
        if (isClientMessage(value)) onEvent({ type: "attach_message", client, message: value });
      },
      {
        maxLineBytes: MAX_LINE_BYTES,
        onTooLong: () =>
          this.close(client, `a message over ${MAX_LINE_BYTES} bytes cannot be relayed to the add-on`),
      },
    );
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      if (this.#clients.get(client) !== socket) return;
      this.#clients.delete(client);
      onEvent({ type: "attach_gone", client });
    });
  }

  /** One line to a client; false when it is gone. */
  send(client: number, message: AttachServerMessage): boolean {
    const socket = this.#clients.get(client);
    if (!socket || socket.destroyed) return false;
    socket.write(`${JSON.stringify(message)}\n`);
    return true;
  }

  /** Tells the client why its access ended, then closes its socket. */
  close(client: number, reason: string): boolean {
    const socket = this.#clients.get(client);
    if (!socket) return false;
    socket.end(`${JSON.stringify({ type: "revoked", reason } satisfies AttachServerMessage)}\n`);
    return true;
  }

  async stop(): Promise<void> {
    for (const socket of this.#clients.values()) socket.destroy();
    this.#clients.clear();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    await unlink(this.path).catch(() => undefined);
  }
}
