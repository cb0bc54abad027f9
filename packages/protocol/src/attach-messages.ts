/**
 * `webbrain mcp --own-firefox`: an MCP client's way into the person's own Firefox. Three hops, one
 * contract:
 *
 *   MCP client --stdio--> `webbrain mcp --own-firefox` --local socket--> companion --native port--> add-on
 *
 * The socket carries one JSON object per line (AttachClientMessage up, AttachServerMessage down).
 * The companion relays each client line to the add-on as a CompanionEvent and each add-on answer
 * back to the client; it decides nothing. The add-on decides everything: whether the person
 * allowed this client, which tabs it may touch, the mode, the permission prompts, Stop and revoke.
 *
 * Invariants:
 * - A client is nobody until the person allows it in the sidebar: every call before that (and
 *   after a deny or a revoke) is answered `ok: false` with a sentence saying so.
 * - Only the add-on ends a client's access (`attach_close`); the companion then sends `revoked`
 *   and closes the socket, so the MCP side can tell its client why.
 * - The socket is reachable by this user alone (a 0700 folder of theirs, the socket 0600).
 */
import type { Mode } from "./modes.js";

/** Who asks: what the MCP client said in its `initialize` (or the process name without one). */
export interface AttachClientInfo {
  name: string;
  version?: string;
}

/** A tool as an MCP tools/list shows it; `inputSchema` is plain JSON Schema. */
export interface AttachToolListing {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** One call's answer: the structured result, the text a model reads, and images. */
export interface AttachToolAnswer {
  result: { success: boolean; error?: string; [field: string]: unknown };
  text: string;
  images: { mimeType: string; data: string }[];
}

export type AttachClientMessage =
  | { type: "attach"; client: AttachClientInfo }
  | { type: "list_tools"; id: number }
  | { type: "call_tool"; id: number; name: string; arguments: Record<string, unknown> }
  /** The MCP client cancelled call `id` (notifications/cancelled): its browser work stops. */
  | { type: "cancel"; id: number };

export type AttachServerMessage =
  | { type: "answer"; id: number; ok: true; tools: AttachToolListing[] }
  | { type: "answer"; id: number; ok: true; answer: AttachToolAnswer }
  | { type: "answer"; id: number; ok: false; error: string }
  /** The person revoked (or denied) access; the socket closes after this line. */
  | { type: "revoked"; reason: string };

/** What the companion pushes to the add-on unasked (it has no `id`: it answers nothing). */
export type CompanionEvent =
  | { type: "attach_message"; client: number; message: AttachClientMessage }
  /** The client's socket closed (its MCP client went away, or `mcp --own-firefox` exited). */
  | { type: "attach_gone"; client: number };

/** What the person chose in the sidebar for one client (the add-on's state, shown to the person). */
export type AttachScope =
  | { kind: "tab"; tabIds: number[] }
  | { kind: "window"; windowId: number; tabIds: number[] };

/** The sidebar's view of one attached client. */
export interface AttachClientView {
  client: number;
  info: AttachClientInfo;
  state: "asking" | "allowed" | "denied";
  mode?: Mode;
  scope?: AttachScope;
  /** Calls running now (Stop ends them). */
  calls: number;
  /** A permission the client's call waits for the person to answer. */
  prompt?: { id: string; detail: string; origin: string };
  /** pause_for_user: the client asks the person to act in the page, then press Continue. */
  takeOver?: { id: string; message: string };
}

/** Where sockets live: one per companion, `companion-<pid>.sock`, in the user's own folder. */
export const ATTACH_SOCKET_PREFIX = "companion-";
export const ATTACH_SOCKET_SUFFIX = ".sock";
