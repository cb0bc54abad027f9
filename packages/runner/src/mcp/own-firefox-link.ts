/**
 * `webbrain mcp --own-firefox`'s line to the person's running Firefox: the companion's socket
 * (companion/attach-socket.ts), one JSON object per line (attach-messages.ts). Everything the
 * client may do is decided by the add-on behind it; this side only asks and relays.
 *
 * Invariants:
 * - Every request gets exactly one answer: the add-on's, or a failure naming why (the socket
 *   closed, the person revoked access). Nothing waits forever on a gone companion.
 * - After `revoked` every call fails at once with the person's reason; the link never reconnects
 *   by itself (the person ended it).
 * - A cancelled call (the MCP client's notifications/cancelled) is cancelled in the add-on too.
 */
import { readdir, stat } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import {
  ATTACH_SOCKET_PREFIX,
  ATTACH_SOCKET_SUFFIX,
  type AttachClientInfo,
  type AttachClientMessage,
  type AttachServerMessage,
  type AttachToolAnswer,
  type AttachToolListing,
} from "@webbrain/protocol";
import { readJsonLines } from "../companion/json-lines.js";
import { BrowserUnavailableError } from "../errors.js";

type Answer = Extract<AttachServerMessage, { type: "answer" }>;

const NO_COMPANION =
  "No WebBrain companion is running for this user. In the Firefox you want to share: install the companion (`webbrain companion install`), then turn on Settings -> Trusted input through the companion in the WebBrain add-on; then start this again.";

export class OwnFirefoxLink {
  readonly #socket: Socket;
  readonly path: string;
  readonly #pending = new Map<number, (answer: Answer) => void>();
  #next = 1;
  #ended: string | undefined;
  /** Resolves with the reason once the link is over (revoked, or the socket closed). */
  readonly ended: Promise<string>;

  private constructor(socket: Socket, path: string) {
    this.#socket = socket;
    this.path = path;
    let end: (reason: string) => void = () => {};
    this.ended = new Promise((resolve) => {
      end = resolve;
    });
    const finish = (reason: string) => {
      if (this.#ended !== undefined) return;
      this.#ended = reason;
      for (const [id, settle] of this.#pending) settle({ type: "answer", id, ok: false, error: reason });
      this.#pending.clear();
      end(reason);
    };
    readJsonLines(socket, (value) => {
      const message = value as AttachServerMessage;
      if (message.type === "revoked") finish(`The person ended this client's access: ${message.reason}`);
      else if (message.type === "answer") {
        const settle = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        settle?.(message);
      }
    });
    socket.on("error", () => undefined);
    socket.on("close", () =>
      finish("The companion closed the connection (Firefox quit, or the companion was turned off)."),
    );
  }

  /** Connects to the newest live companion socket in `dir` and introduces the client. */
  static async open(dir: string): Promise<OwnFirefoxLink> {
    for (const path of await socketsNewestFirst(dir)) {
      const socket = await new Promise<Socket | undefined>((resolve) => {
        const attempt = connect(path);
        attempt.once("connect", () => resolve(attempt));
        // A socket left by a companion that died refuses: try the next one.
        attempt.once("error", () => resolve(undefined));
      });
      if (socket) return new OwnFirefoxLink(socket, path);
    }
    throw new BrowserUnavailableError(NO_COMPANION);
  }

  /** Tells the add-on who asks; the sidebar shows it to the person. */
  introduce(client: AttachClientInfo): void {
    this.#write({ type: "attach", client });
  }

  async listTools(): Promise<AttachToolListing[]> {
    const answer = await this.#request((id) => ({ type: "list_tools", id }));
    if (!answer.ok) throw new Error(answer.error);
    return "tools" in answer ? answer.tools : [];
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<AttachToolAnswer> {
    const answer = await this.#request((id) => ({ type: "call_tool", id, name, arguments: args }), signal);
    if (!answer.ok)
      return { result: { success: false, error: answer.error }, text: answer.error, images: [] };
    if ("answer" in answer) return answer.answer;
    return {
      result: { success: false, error: "The add-on answered a call with a tool list." },
      text: "",
      images: [],
    };
  }

  close(): void {
    this.#socket.end();
  }

  #request(message: (id: number) => AttachClientMessage, signal?: AbortSignal): Promise<Answer> {
    const id = this.#next++;
    if (this.#ended !== undefined)
      return Promise.resolve({ type: "answer", id, ok: false, error: this.#ended });
    return new Promise<Answer>((resolve) => {
      this.#pending.set(id, resolve);
      const cancel = () => this.#write({ type: "cancel", id });
      signal?.addEventListener("abort", cancel, { once: true });
      this.#write(message(id));
    });
  }

  #write(message: AttachClientMessage): void {
    if (!this.#socket.destroyed) this.#socket.write(`${JSON.stringify(message)}\n`);
  }
}

async function socketsNewestFirst(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: { path: string; at: number }[] = [];
  for (const name of names) {
    if (!name.startsWith(ATTACH_SOCKET_PREFIX) || !name.endsWith(ATTACH_SOCKET_SUFFIX)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isSocket()) found.push({ path, at: info.mtimeMs });
  }
  return found.sort((a, b) => b.at - a.at).map((entry) => entry.path);
}
