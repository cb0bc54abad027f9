/**
 * The background's answers to the sidebar's attach requests (shared/attach-requests.ts): each
 * one acts on the broker and answers the clients' new view, or the error in a sentence.
 */
import type { AttachReply, AttachRequest } from "../shared/attach-requests.js";
import type { AttachBroker } from "./attach-broker.js";

async function act(broker: AttachBroker, request: AttachRequest): Promise<void> {
  switch (request.type) {
    case "attach_state":
      return;
    case "attach_share_tab":
      return broker.decide({
        client: request.client,
        choice: "tab",
        tabId: request.tabId,
        mode: request.mode,
      });
    case "attach_share_window":
      return broker.decide({ client: request.client, choice: "window", mode: request.mode });
    case "attach_deny":
      return broker.decide({ client: request.client, choice: "deny" });
    case "attach_stop":
      broker.stop(request.client);
      return;
    case "attach_revoke":
      return broker.revoke(request.client);
    case "attach_prompt":
      broker.answerPrompt(request.client, request.promptId, request.answer);
      return;
    case "attach_hand_back":
      broker.handBack(request.client, request.takeOverId, request.note);
      return;
  }
}

export async function answerAttachRequest(
  broker: AttachBroker,
  request: AttachRequest,
): Promise<AttachReply> {
  try {
    await act(broker, request);
    return { ok: true, clients: broker.view() };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
