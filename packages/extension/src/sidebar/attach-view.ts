/**
 * The sidebar's "Clients in this Firefox": MCP clients attached through the companion
 * (`webbrain mcp --own-firefox`). A client that asks gets a card: the person picks the mode and
 * shares this tab or a new window, or denies it. An allowed client shows its tabs, a permission
 * its call waits for (allow once / always / deny), Stop (its calls in flight) and Revoke.
 * Everything shown comes from the background's broker; names are set as text, never as markup.
 */
import { type AttachClientView, MODES, type Mode } from "@webbrain/protocol";
import { ATTACH_CHANGED, type AttachReply, type AttachRequest } from "../shared/attach-requests.js";
import { element } from "../shared/element.js";
import { t } from "../shared/i18n.js";

async function send(request: AttachRequest): Promise<AttachClientView[]> {
  const reply = (await browser.runtime.sendMessage(request)) as AttachReply | undefined;
  if (!reply) throw new Error("The background page did not answer.");
  if (!reply.ok) throw new Error(reply.error);
  return reply.clients;
}

export class AttachView {
  readonly #root: HTMLElement;
  readonly #tabId: () => number | undefined;
  readonly #onError: (error: unknown) => void;

  constructor(root: HTMLElement, tabId: () => number | undefined, onError: (error: unknown) => void) {
    this.#root = root;
    this.#tabId = tabId;
    this.#onError = onError;
    browser.runtime.onMessage.addListener((message) => {
      if ((message as { type?: unknown }).type === ATTACH_CHANGED) void this.refresh();
      return undefined;
    });
  }

  async refresh(): Promise<void> {
    try {
      this.#render(await send({ type: "attach_state" }));
    } catch (error) {
      this.#onError(error);
    }
  }

  #act(request: AttachRequest): void {
    void send(request).then(
      (clients) => this.#render(clients),
      (error: unknown) => this.#onError(error),
    );
  }

  #render(clients: AttachClientView[]): void {
    this.#root.hidden = clients.length === 0;
    const list = element("ul", { className: "attach-list" });
    for (const client of clients) list.append(this.#card(client));
    this.#root.replaceChildren(element("h2", { textContent: t("attachHeading") }), list);
  }

  #card(client: AttachClientView): HTMLLIElement {
    const item = element("li", { className: `attach-client attach-${client.state}` });
    item.dataset.client = String(client.client);
    const button = (text: string, className: string, request: AttachRequest) => {
      const node = element("button", { type: "button", className, textContent: text });
      node.addEventListener("click", () => this.#act(request));
      return node;
    };
    if (client.state === "asking") {
      const mode = element("select", { className: "attach-mode" });
      mode.setAttribute("aria-label", t("attachModeLabel"));
      for (const value of MODES)
        mode.append(element("option", { value, textContent: value, selected: value === "act" }));
      const chosen = () => mode.value as Mode;
      const shareTab = element("button", {
        type: "button",
        className: "attach-share-tab primary",
        textContent: t("attachShareTab"),
      });
      shareTab.addEventListener("click", () => {
        const tabId = this.#tabId();
        if (tabId !== undefined)
          this.#act({ type: "attach_share_tab", client: client.client, tabId, mode: chosen() });
      });
      const shareWindow = element("button", {
        type: "button",
        className: "attach-share-window secondary",
        textContent: t("attachShareWindow"),
      });
      shareWindow.addEventListener("click", () =>
        this.#act({ type: "attach_share_window", client: client.client, mode: chosen() }),
      );
      item.append(
        element("p", { className: "attach-asks", textContent: t("attachAsks", client.info.name) }),
        mode,
        shareTab,
        shareWindow,
        button(t("attachDeny"), "attach-deny quiet", { type: "attach_deny", client: client.client }),
      );
      return item;
    }
    const tabs = client.scope?.tabIds.length ?? 0;
    item.append(
      element("p", {
        className: "attach-allowed",
        textContent: t("attachAllowed", client.info.name, String(tabs), client.mode ?? "act"),
      }),
    );
    if (client.calls > 0)
      item.append(element("p", { className: "attach-working", textContent: t("attachWorking") }));
    const prompt = client.prompt;
    if (prompt) {
      const answer = (text: string, className: string, value: "once" | "always" | "deny") =>
        button(text, className, {
          type: "attach_prompt",
          client: client.client,
          promptId: prompt.id,
          answer: value,
        });
      item.append(
        element("p", {
          className: "attach-prompt",
          textContent: t("attachPrompt", client.info.name, prompt.detail, prompt.origin),
        }),
        answer(t("attachAllowOnce"), "attach-allow-once primary", "once"),
        answer(t("attachAllowAlways"), "attach-allow-always secondary", "always"),
        answer(t("attachDeny"), "attach-prompt-deny quiet", "deny"),
      );
    }
    const takeOver = client.takeOver;
    if (takeOver) {
      const note = element("textarea", { className: "attach-note", rows: 2 });
      note.setAttribute("aria-label", t("attachNoteLabel"));
      const proceed = element("button", {
        type: "button",
        className: "attach-continue primary",
        textContent: t("attachContinue"),
      });
      proceed.addEventListener("click", () =>
        this.#act({
          type: "attach_hand_back",
          client: client.client,
          takeOverId: takeOver.id,
          note: note.value,
        }),
      );
      item.append(
        element("p", {
          className: "attach-takeover",
          textContent: t("attachTakeOver", client.info.name, takeOver.message),
        }),
        note,
        proceed,
      );
    }
    item.append(
      button(t("attachStop"), "attach-stop secondary", { type: "attach_stop", client: client.client }),
      button(t("attachRevoke"), "attach-revoke quiet", { type: "attach_revoke", client: client.client }),
    );
    return item;
  }
}
