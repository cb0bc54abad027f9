/**
 * Per-tab UI state, mirrored to `browser.storage.session` so it survives the sidebar closing
 * (and the background page reloading within a browser session):
 *   tabChat:<tabId>    the visible transcript (data, see shared/transcript.ts)
 *   runUi:<tabId>      the run journal's snapshot (written through `writeRun`)
 *   agentConv:<tabId>  the agent's conversation: written by the agent core's ConversationStore
 *                      through the same area; read here only for the /allow-api badge.
 *
 * Invariants: `hydrate(tabId)` returns the stored state before anything new is added, so the
 * next message always continues the conversation that was shown; every mutation is written
 * before the promise it returns resolves; a value that fails to parse is dropped with a notice
 * in the transcript, never crashes the background page.
 */
import { t } from "../shared/i18n.js";
import type { RunSnapshot } from "../shared/run-events.js";
import { appendBounded, type TranscriptItem } from "../shared/transcript.js";
import type { KeyValueArea } from "./settings-store.js";

export interface TabSession {
  tabId: string;
  transcript: TranscriptItem[];
  /** The last run's snapshot, as the journal last stored it. */
  run: RunSnapshot | undefined;
}

export const agentConvKey = (tabId: string) => `agentConv:${tabId}`;
export const tabChatKey = (tabId: string) => `tabChat:${tabId}`;
export const runUiKeyFor = (tabId: string) => `runUi:${tabId}`;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseTranscript(raw: unknown): TranscriptItem[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return raw.filter((item): item is TranscriptItem => isRecord(item) && typeof item.kind === "string");
}

function parseRun(raw: unknown): RunSnapshot | undefined {
  if (!isRecord(raw) || typeof raw.runId !== "string" || typeof raw.status !== "string") return undefined;
  return raw as unknown as RunSnapshot;
}

export class TabSessions {
  private readonly sessions = new Map<string, TabSession>();
  private readonly loading = new Map<string, Promise<TabSession>>();

  constructor(private readonly area: KeyValueArea) {}

  /** The tab's state, loaded from session storage the first time it is asked for. */
  hydrate(tabId: string): Promise<TabSession> {
    const known = this.sessions.get(tabId);
    if (known) return Promise.resolve(known);
    let pending = this.loading.get(tabId);
    if (!pending) {
      pending = this.load(tabId).finally(() => this.loading.delete(tabId));
      this.loading.set(tabId, pending);
    }
    return pending;
  }

  private async load(tabId: string): Promise<TabSession> {
    const keys = [tabChatKey(tabId), runUiKeyFor(tabId)];
    const stored = await this.area.get(keys);
    const transcript = parseTranscript(stored[tabChatKey(tabId)]);
    const session: TabSession = {
      tabId,
      transcript: transcript ?? [],
      run: parseRun(stored[runUiKeyFor(tabId)]),
    };
    if (stored[tabChatKey(tabId)] !== undefined && transcript === undefined) {
      session.transcript.push({
        kind: "notice",
        text: t("noticeConversationReset"),
        at: Date.now(),
      });
    }
    // A run recorded as running cannot be alive after the background page (re)loaded.
    if (session.run?.status === "running") {
      session.run = {
        ...session.run,
        status: "error",
        openTools: [],
        prompt: undefined,
        message: t("noticeRunInterrupted"),
      };
      session.transcript = appendBounded(session.transcript, [
        { kind: "error", text: session.run.message ?? "", at: Date.now() },
      ]);
      await this.area.set({ [runUiKeyFor(tabId)]: session.run, [tabChatKey(tabId)]: session.transcript });
    }
    this.sessions.set(tabId, session);
    return session;
  }

  async appendTranscript(tabId: string, items: TranscriptItem[]): Promise<void> {
    await this.appendTo(await this.hydrate(tabId), items);
  }

  /**
   * Append to an already hydrated session: memory changes before this returns (synchronously),
   * the returned promise is the storage write. The background page relies on that to keep the
   * in-memory transcript and the run journal in step at every synchronous point.
   */
  appendTo(session: TabSession, items: TranscriptItem[]): Promise<void> {
    session.transcript = appendBounded(session.transcript, items);
    return this.area.set({ [tabChatKey(session.tabId)]: session.transcript });
  }

  /** Whether the agent's stored conversation for this tab carries `/allow-api`. */
  async allowApi(tabId: string): Promise<boolean> {
    const stored = await this.area.get(agentConvKey(tabId));
    const conversation = stored[agentConvKey(tabId)];
    return isRecord(conversation) && conversation.allowApi === true;
  }

  /** Keep the in-memory copy of the run in step with what the journal writes. */
  async writeRun(tabId: string, snapshot: RunSnapshot): Promise<void> {
    const session = await this.hydrate(tabId);
    session.run = snapshot;
    await this.area.set({ [runUiKeyFor(tabId)]: snapshot });
  }

  /** Forget a tab: its transcript, run and the agent's conversation (Clear, or the tab closed). */
  async forget(tabId: string): Promise<void> {
    this.sessions.delete(tabId);
    await this.area.remove([agentConvKey(tabId), tabChatKey(tabId), runUiKeyFor(tabId)]);
  }

  /** Start over in a tab but keep it known (Clear while the sidebar is open). */
  async clear(tabId: string): Promise<TabSession> {
    await this.forget(tabId);
    return this.hydrate(tabId);
  }
}
