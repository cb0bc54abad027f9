/**
 * The background page's message router: one handler per request type, each answering a
 * `Reply` (an error becomes `{ ok: false, error }` with its message, never a rejected promise),
 * and the run port: a sidebar subscribes to a tab and gets a snapshot, then live events.
 *
 * Invariant: a subscriber's snapshot and the live events after it come from the same
 * synchronous turn of the background page (the snapshot is read from memory and the listener
 * registered before anything else can run), so no event can fall between them.
 */
import type { BrowserPort, TraceRecord } from "@webbrain/agent";
import { isAttachment, MAX_ATTACHMENTS } from "../shared/attachments.js";
import { t } from "../shared/i18n.js";
import type { PortToSidebar, Reply, ReplyValues, Request, TabState } from "../shared/messages.js";
import { isRequest, RUN_PORT_NAME } from "../shared/messages.js";
import type { RunInputShown } from "../shared/run-events.js";
import type { AlwaysGrants } from "./always-grants.js";
import { testProviderConnection } from "./connection-test.js";
import type { ContextInbox } from "./context-menu.js";
import type { OfferedFiles } from "./offered-files.js";
import type { PayloadRecorder } from "./payload-recorder.js";
import type { PersonRecordings } from "./person-recordings.js";
import type { RunManager } from "./run-manager.js";
import type { SettingsStore } from "./settings-store.js";
import type { TabSessions } from "./tab-sessions.js";

export interface RouterDeps {
  settings: SettingsStore;
  sessions: TabSessions;
  runs: RunManager;
  port: BrowserPort;
  payloads: PayloadRecorder;
  grants: AlwaysGrants;
  /** What the context menu attached per tab, until the tab's sidebar takes it. */
  contextInbox: ContextInbox;
  /** Files offered for each tab's page (sidebar "For the page"). */
  offeredFiles: OfferedFiles;
  /** Reset the agent's memory of a tab (its conversation and guards). */
  clearAgentConversation(tabId: string): Promise<void>;
  /** The tab's last finished run as trace records (RunHooks keeps one per tab in memory). */
  lastRunTrace?(tabId: string): TraceRecord[] | undefined;
  /** The person's recordings, one per tab (the sidebar's Record). */
  recordings: PersonRecordings;
  /** What input a run started now would use (Settings shows it beside the companion switch). */
  companionStatus?(): Promise<RunInputShown>;
}

type Handlers = {
  [K in Request["type"]]: (request: Extract<Request, { type: K }>) => Promise<ReplyValues[K]>;
};

export class Router {
  private readonly subscribers = new Map<browser.runtime.Port, number>();
  private readonly handlers: Handlers;

  constructor(private readonly deps: RouterDeps) {
    this.handlers = {
      get_settings: () => deps.settings.load(),
      save_settings: (r) => deps.settings.save(r.settings),
      test_provider: (r) => testProviderConnection(r.provider),
      chat_start: (r) => {
        const attachments = r.attachments ?? [];
        if (attachments.length > MAX_ATTACHMENTS || !attachments.every(isAttachment)) {
          throw new Error(t("attachRejected", MAX_ATTACHMENTS));
        }
        return deps.runs.start(String(r.tabId), r.text, r.mode, { attachments, interactive: true });
      },
      chat_continue: (r) => deps.runs.continueRun(String(r.tabId)),
      chat_stop: async (r) => ({ stopped: deps.runs.stop(String(r.tabId)) }),
      chat_clear: async (r) => {
        const tabId = String(r.tabId);
        if (deps.runs.isRunning(tabId)) throw new Error(t("errorClearWhileRunning"));
        // A cleared chat starts over: the files offered to the conversation that knew them go too.
        deps.offeredFiles.forget(r.tabId);
        await deps.clearAgentConversation(tabId);
        await deps.sessions.clear(tabId);
        await this.pushState(r.tabId);
        return { cleared: true as const };
      },
      prompt_answer: async (r) => ({
        accepted: deps.runs.answer(String(r.tabId), r.promptId, r.choiceId, r.note),
      }),
      get_payloads: async (r) => deps.payloads.list(String(r.tabId)),
      list_grants: () => deps.grants.list(),
      revoke_grant: (r) => deps.grants.revoke(r.capability, r.origin),
      get_run_trace: async (r) => {
        const records = deps.lastRunTrace?.(String(r.tabId)) ?? [];
        if (records.at(-1)?.type !== "run_end") throw new Error(t("workflowNoRun"));
        return records;
      },
      take_context_attachments: async (r) => deps.contextInbox.take(r.tabId),
      companion_status: async () =>
        (await deps.companionStatus?.()) ?? { kind: "synthetic", detail: t("inputSynthetic") },
      offer_file: async (r) => {
        if (typeof r.name !== "string" || typeof r.mime !== "string" || !(r.data instanceof ArrayBuffer))
          throw new Error(t("offerRejected"));
        return this.offeredChanged(r.tabId, deps.offeredFiles.offer(r.tabId, r.name, r.mime, r.data));
      },
      withdraw_file: async (r) =>
        this.offeredChanged(r.tabId, deps.offeredFiles.withdraw(r.tabId, String(r.name))),
      record_start: (r) => deps.recordings.start(r.tabId),
      record_stop: (r) => deps.recordings.stop(r.tabId),
    };
    deps.contextInbox.onPut((tabId) => {
      for (const [port, subscribed] of this.subscribers) {
        if (subscribed === tabId)
          port.postMessage({ type: "context_attached", tabId } satisfies PortToSidebar);
      }
    });
    deps.runs.onEvent((tabId, entry) => {
      const message: PortToSidebar = { type: "event", tabId: Number(tabId), entry };
      for (const [port, subscribed] of this.subscribers) {
        if (String(subscribed) === tabId) port.postMessage(message);
      }
      if (entry.event.kind === "run_end") void this.pushAllowApi(Number(tabId));
    });
  }

  async handle(message: unknown): Promise<Reply<unknown>> {
    if (!isRequest(message) || !(message.type in this.handlers)) {
      return {
        ok: false,
        error: `Unknown request ${JSON.stringify((message as { type?: unknown })?.type)}.`,
      };
    }
    try {
      const handler = this.handlers[message.type] as (r: Request) => Promise<unknown>;
      return { ok: true, value: await handler(message) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** A sidebar connected: it subscribes to one tab at a time. */
  connect(port: browser.runtime.Port): void {
    if (port.name !== RUN_PORT_NAME) return;
    port.onMessage.addListener((raw) => {
      const message = raw as { type?: string; tabId?: unknown };
      if (message.type !== "subscribe" || typeof message.tabId !== "number") return;
      void this.subscribe(port, message.tabId);
    });
    port.onDisconnect.addListener(() => this.subscribers.delete(port));
  }

  private async subscribe(port: browser.runtime.Port, tabId: number): Promise<void> {
    const read = await this.tabStateReader(tabId);
    // No await from here on: the state and the registration happen in one synchronous step.
    this.subscribers.set(port, tabId);
    port.postMessage({ type: "snapshot", state: read() } satisfies PortToSidebar);
  }

  /**
   * Does everything asynchronous, then returns a synchronous reader of the tab's state, so the
   * caller can read transcript and live run in the same step in which it starts listening.
   */
  private async tabStateReader(tabId: number): Promise<() => TabState> {
    const key = String(tabId);
    const tab = await this.deps.port.getTab(key).catch(() => undefined);
    const allowApi = await this.deps.sessions.allowApi(key);
    const session = await this.deps.sessions.hydrate(key);
    return () => ({
      tabId,
      title: tab?.title ?? "",
      url: tab?.url ?? "",
      allowApi,
      offeredFiles: this.deps.offeredFiles.list(tabId),
      recording: this.deps.recordings.isRecording(tabId),
      transcript: [...session.transcript],
      run: this.deps.runs.liveSnapshot(key) ?? session.run,
    });
  }

  private async pushAllowApi(tabId: number): Promise<void> {
    const allowApi = await this.deps.sessions.allowApi(String(tabId)).catch(() => false);
    for (const [port, subscribed] of this.subscribers) {
      if (subscribed === tabId)
        port.postMessage({ type: "allow_api", tabId, allowApi } satisfies PortToSidebar);
    }
  }

  /** Tells the tab's other panels what is offered now; answers the list to the one that asked. */
  private offeredChanged(tabId: number, files: ReplyValues["offer_file"]): ReplyValues["offer_file"] {
    for (const [port, subscribed] of this.subscribers) {
      if (subscribed === tabId)
        port.postMessage({ type: "offered_files", tabId, files } satisfies PortToSidebar);
    }
    return files;
  }

  /** Send a fresh state to the tab's subscribers (after Clear). */
  private async pushState(tabId: number): Promise<void> {
    const state = (await this.tabStateReader(tabId))();
    for (const [port, subscribed] of this.subscribers) {
      if (subscribed === tabId) port.postMessage({ type: "tab_state", state } satisfies PortToSidebar);
    }
  }
}
