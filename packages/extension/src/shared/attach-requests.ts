/**
 * The sidebar's requests about attached MCP clients (background/attach-broker.ts), and the
 * background's word that their view changed. Kept apart from messages.ts's run requests: these
 * are answered by the broker, not the Router.
 */
import type { AttachClientView, Mode } from "@webbrain/protocol";

export const ATTACH_CHANGED = "attach_changed";

export type AttachRequest =
  | { type: "attach_state" }
  | { type: "attach_share_tab"; client: number; tabId: number; mode: Mode }
  | { type: "attach_share_window"; client: number; mode: Mode }
  | { type: "attach_deny"; client: number }
  | { type: "attach_stop"; client: number }
  | { type: "attach_revoke"; client: number }
  | { type: "attach_prompt"; client: number; promptId: string; answer: "once" | "always" | "deny" }
  | { type: "attach_hand_back"; client: number; takeOverId: string; note: string };

export type AttachReply = { ok: true; clients: AttachClientView[] } | { ok: false; error: string };

const TYPES: ReadonlySet<string> = new Set([
  "attach_state",
  "attach_share_tab",
  "attach_share_window",
  "attach_deny",
  "attach_stop",
  "attach_revoke",
  "attach_prompt",
  "attach_hand_back",
]);

export function isAttachRequest(message: unknown): message is AttachRequest {
  return (
    typeof message === "object" && message !== null && TYPES.has(String((message as { type?: unknown }).type))
  );
}
