/**
 * MCP clients attached to the person's own Firefox (`webbrain mcp --own-firefox`, relayed by the
 * companion): the person's consent, per client and per tab, and each allowed client's calls
 * through the agent's own ToolRunner over the add-on's port, narrowed to the shared tabs.
 *
 * Invariants:
 * - A client acts on nothing until the person allows it in the sidebar (share this tab, or a new
 *   window for the agent); until then, and after a deny or a revoke, every call is refused with a
 *   sentence saying why. A denied or revoked client is cut off (its socket closes).
 * - An allowed client sees only its shared tabs (attach-scope.ts); the mode the person chose,
 *   the permission gate (its prompts in the sidebar) and the recipient guard hold on every call.
 * - Stop ends the client's calls in flight (the browser work stops) and keeps its access; revoke
 *   ends both, and takes the badge and the bar off its tabs.
 * - The companion going away ends every client: nothing is left shared.
 */
import {
  type BrowserPort,
  decoratePort,
  type MessagingRoute,
  type PermissionAnswer,
  type PermissionRequest,
  type PersonAnswer,
  type PortCallOptions,
  RecipientGuard,
  ToolRunner,
  toolListing,
  toolsFor,
} from "@webbrain/agent";
import type {
  AttachClientInfo,
  AttachClientMessage,
  AttachClientView,
  AttachServerMessage,
  AttachToolListing,
  CompanionEvent,
  Mode,
} from "@webbrain/protocol";
import { SharedTabs, scopedPort } from "./attach-scope.js";
import type { RunInput } from "./companion-input.js";

/** How the person answers for a client in the sidebar. */
export type AttachDecision =
  | { client: number; choice: "tab"; tabId: number; mode: Mode }
  | { client: number; choice: "window"; mode: Mode }
  | { client: number; choice: "deny" };

export interface AttachMarks {
  /** Shows on the tab that `name` controls it (the toolbar badge and a bar in the page). */
  show(tabId: number, name: string): void;
  clear(tabId: number): void;
}

export interface AttachBrokerDeps {
  companion: {
    onEvent(listener: (event: CompanionEvent | { type: "gone" }) => void): () => void;
    attachSend(client: number, message: AttachServerMessage): Promise<boolean>;
    attachClose(client: number, reason: string): Promise<boolean>;
  };
  port: BrowserPort;
  /** Trusted input through the companion when this Firefox has BiDi (read when a client is allowed). */
  runInput(): Promise<RunInput>;
  routes(): Promise<MessagingRoute[]>;
  marks: AttachMarks;
  /** A new window for the agent; its first tab. */
  openWindow(): Promise<{ windowId: number; tabId: number }>;
  /** The sidebar's view changed (a client asks, is allowed, calls, prompts, leaves). */
  changed(): void;
}

interface PendingPrompt {
  id: string;
  detail: string;
  origin: string;
  resolve(answer: PermissionAnswer): void;
}

interface PendingTakeOver {
  id: string;
  message: string;
  resolve(answer: PersonAnswer): void;
}

interface AttachedClient {
  id: number;
  info: AttachClientInfo;
  state: "asking" | "allowed";
  mode?: Mode;
  /** What the person shared: a tab, or a window of its own (the tabs themselves are `shared`). */
  where?: { kind: "tab" } | { kind: "window"; windowId: number };
  shared?: SharedTabs;
  runner?: ToolRunner;
  calls: Map<number, AbortController>;
  prompt?: PendingPrompt;
  /** pause_for_user: the client waits for the person to act and press Continue. */
  takeOver?: PendingTakeOver;
}

const UNNAMED: AttachClientInfo = { name: "an MCP client" };

export function waitingMessage(name: string): string {
  return `${name} is waiting for the person to allow it in the WebBrain sidebar (Share this tab, or a new window for the agent); nothing was done. Ask them, then call again.`;
}

export class AttachBroker {
  readonly #deps: AttachBrokerDeps;
  readonly #clients = new Map<number, AttachedClient>();
  #promptCounter = 0;

  constructor(deps: AttachBrokerDeps) {
    this.#deps = deps;
    deps.companion.onEvent((event) => this.#onEvent(event));
  }

  view(): AttachClientView[] {
    return [...this.#clients.values()].map((client) => ({
      client: client.id,
      info: client.info,
      state: client.state,
      ...(client.mode ? { mode: client.mode } : {}),
      ...(client.where && client.shared ? { scope: { ...client.where, tabIds: client.shared.ids() } } : {}),
      calls: client.calls.size,
      ...(client.prompt
        ? { prompt: { id: client.prompt.id, detail: client.prompt.detail, origin: client.prompt.origin } }
        : {}),
      ...(client.takeOver ? { takeOver: { id: client.takeOver.id, message: client.takeOver.message } } : {}),
    }));
  }

  async decide(decision: AttachDecision): Promise<void> {
    const client = this.#clients.get(decision.client);
    if (!client) throw new Error("That client is gone.");
    if (decision.choice === "deny") {
      await this.#cutOff(client, "the person denied access in the WebBrain sidebar");
      return;
    }
    if (client.state === "allowed") throw new Error(`${client.info.name} is already allowed.`);
    let firstTab: number;
    if (decision.choice === "window") {
      const opened = await this.#deps.openWindow();
      firstTab = opened.tabId;
      client.where = { kind: "window", windowId: opened.windowId };
    } else {
      firstTab = decision.tabId;
      client.where = { kind: "tab" };
    }
    const shared = new SharedTabs([firstTab]);
    client.shared = shared;
    client.mode = decision.mode;
    const input = await this.#deps.runInput();
    const name = client.info.name;
    const port = scopedPort(
      decoratePort(this.#deps.port, input.overrides),
      shared,
      String(firstTab),
      (tab) => this.#deps.marks.show(Number(tab.id), name),
      (message, options) => this.#takeOver(client, message, options),
    );
    client.runner = new ToolRunner({
      port: new RecipientGuard(await this.#deps.routes()).wrap(port),
      tabId: String(firstTab),
      mode: decision.mode,
      tier: "full",
      vision: true,
      // Over MCP the client is the agent: guards warn, never refuse (DESIGN.md).
      advisoryGuards: true,
      approver: (request) => this.#ask(client, request),
    });
    client.state = "allowed";
    this.#deps.marks.show(firstTab, name);
    this.#deps.changed();
  }

  /** Stop: the client's calls in flight end (and any prompt is refused); its access stays. */
  stop(clientId: number): boolean {
    const client = this.#clients.get(clientId);
    if (!client) return false;
    for (const call of client.calls.values()) call.abort();
    client.prompt?.resolve("deny");
    return true;
  }

  async revoke(clientId: number): Promise<void> {
    const client = this.#clients.get(clientId);
    if (client) await this.#cutOff(client, "the person revoked access in the WebBrain sidebar");
  }

  answerPrompt(clientId: number, promptId: string, answer: PermissionAnswer): boolean {
    const prompt = this.#clients.get(clientId)?.prompt;
    if (!prompt || prompt.id !== promptId) return false;
    prompt.resolve(answer);
    return true;
  }

  /** Continue on a take-over card: the client's pause_for_user answers with the person's note. */
  handBack(clientId: number, takeOverId: string, note: string): boolean {
    const takeOver = this.#clients.get(clientId)?.takeOver;
    if (!takeOver || takeOver.id !== takeOverId) return false;
    takeOver.resolve({ resumed: true, said: note.trim() });
    return true;
  }

  /** The tab closed: no client keeps it. */
  forgetTab(tabId: number): void {
    for (const client of this.#clients.values()) client.shared?.forget(tabId);
  }

  /** Whether `tabId` is shared with a client now, and with whom (to show the bar again after a load). */
  controllerOf(tabId: number): string | undefined {
    for (const client of this.#clients.values()) {
      if (client.state === "allowed" && client.shared?.has(tabId)) return client.info.name;
    }
    return undefined;
  }

  #onEvent(event: CompanionEvent | { type: "gone" }): void {
    if (event.type === "gone") {
      for (const client of [...this.#clients.values()]) this.#forget(client);
      return;
    }
    if (event.type === "attach_gone") {
      const client = this.#clients.get(event.client);
      if (client) this.#forget(client);
      return;
    }
    void this.#onMessage(event.client, event.message);
  }

  async #onMessage(clientId: number, message: AttachClientMessage): Promise<void> {
    let client = this.#clients.get(clientId);
    if (!client) {
      client = { id: clientId, info: UNNAMED, state: "asking", calls: new Map() };
      this.#clients.set(clientId, client);
      this.#deps.changed();
    }
    if (message.type === "attach") {
      // A name is shown to the person, never trusted: kept short, as plain text.
      const name = String(message.client.name || UNNAMED.name).slice(0, 80);
      const version = message.client.version ? String(message.client.version).slice(0, 40) : undefined;
      client.info = { name, ...(version ? { version } : {}) };
      this.#deps.changed();
      return;
    }
    if (message.type === "cancel") {
      client.calls.get(message.id)?.abort();
      return;
    }
    if (message.type === "list_tools") {
      await this.#send(client, { type: "answer", id: message.id, ok: true, tools: this.#tools(client) });
      return;
    }
    const runner = client.runner;
    if (client.state !== "allowed" || !runner) {
      await this.#send(client, {
        type: "answer",
        id: message.id,
        ok: false,
        error: waitingMessage(client.info.name),
      });
      return;
    }
    const controller = new AbortController();
    client.calls.set(message.id, controller);
    this.#deps.changed();
    try {
      const answer = await runner.call(message.name, message.arguments ?? {}, { signal: controller.signal });
      await this.#send(client, {
        type: "answer",
        id: message.id,
        ok: true,
        answer: { result: answer.result, text: answer.text, images: answer.images },
      });
    } catch (error) {
      await this.#send(client, {
        type: "answer",
        id: message.id,
        ok: false,
        error: (error as Error).message,
      });
    } finally {
      client.calls.delete(message.id);
      this.#deps.changed();
    }
  }

  /** The tools the client's mode offers here (before consent: what Act would offer). */
  #tools(client: AttachedClient): AttachToolListing[] {
    const specs =
      client.runner?.tools() ??
      toolsFor({ mode: "act", tier: "full", vision: true, capabilities: this.#deps.port.capabilities });
    return specs.map(toolListing);
  }

  #ask(client: AttachedClient, request: PermissionRequest): Promise<PermissionAnswer> {
    client.prompt?.resolve("deny");
    return new Promise<PermissionAnswer>((resolve) => {
      const id = `attach-prompt-${++this.#promptCounter}`;
      client.prompt = {
        id,
        detail: request.detail,
        origin: request.origin,
        resolve: (answer) => {
          if (client.prompt?.id === id) client.prompt = undefined;
          resolve(answer);
          this.#deps.changed();
        },
      };
      this.#deps.changed();
    });
  }

  /** Shows the client's take-over card; Stop (the call's signal) or the client leaving ends it. */
  #takeOver(client: AttachedClient, message: string, options: PortCallOptions = {}): Promise<PersonAnswer> {
    return new Promise<PersonAnswer>((resolve, reject) => {
      const id = `attach-takeover-${++this.#promptCounter}`;
      const settle = () => {
        if (client.takeOver?.id === id) client.takeOver = undefined;
        options.signal?.removeEventListener("abort", onAbort);
        this.#deps.changed();
      };
      const onAbort = () => {
        settle();
        reject(options.signal?.reason ?? new Error("Stopped."));
      };
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      client.takeOver = {
        id,
        message: message.slice(0, 2_000),
        resolve: (answer) => {
          settle();
          resolve(answer);
        },
      };
      this.#deps.changed();
    });
  }

  async #send(client: AttachedClient, message: AttachServerMessage): Promise<void> {
    await this.#deps.companion.attachSend(client.id, message).catch(() => false);
  }

  async #cutOff(client: AttachedClient, reason: string): Promise<void> {
    this.#forget(client);
    await this.#deps.companion.attachClose(client.id, reason).catch(() => false);
  }

  #forget(client: AttachedClient): void {
    if (!this.#clients.delete(client.id)) return;
    for (const call of client.calls.values()) call.abort();
    client.prompt?.resolve("deny");
    for (const tabId of client.shared?.ids() ?? []) {
      if (this.controllerOf(tabId) === undefined) this.#deps.marks.clear(tabId);
    }
    this.#deps.changed();
  }
}
