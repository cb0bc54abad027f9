/**
 * Conversations, one per tab, persisted through the Store after every step so a closed
 * sidebar, a restarted background page or a crashed runner can restore them.
 *
 * Invariants: stored under `agentConv:<tabId>` (spec 000's key shape) with a version; a stored
 * value that does not parse as this version is discarded, never half-restored; the messages
 * are pi-ai Messages as sent to the model (JSON-safe).
 */
import type { Message } from "@mariozechner/pi-ai";
import { isMode, type Mode } from "@webbrain/protocol";
import type { Store } from "../store.js";
import type { JsonValue } from "../tools/browser-port.js";
import type { Plan } from "./planner.js";

export const CONVERSATION_VERSION = 1;
export const CONVERSATION_KEY_PREFIX = "agentConv:";

export interface Conversation {
  version: typeof CONVERSATION_VERSION;
  tabId: string;
  mode: Mode;
  messages: Message[];
  /** The user's `/allow-api`: fetch_url may POST/PUT/PATCH/DELETE. */
  allowApi: boolean;
  /** Model turns used by the current task (against maxSteps). */
  stepsUsed: number;
  /** The task stopped at the step limit; Continue resumes it. */
  pendingContinue: boolean;
  /** Plan before Act: the current task's plan, if one was approved. */
  plan?: Plan;
  planApproved: boolean;
  /** The site adapter last injected, so it is injected once per site. */
  adapterId?: string;
  /** The tab the agent works in now (new_tab moves it). */
  workingTabId: string;
  /**
   * URLs the user gave: those in their messages and the page each task started on. In Ask,
   * fetch_url / research_url reach only these and the page's links (ask-fetch-policy.ts).
   */
  userUrls?: string[];
  updatedAt: number;
}

export function newConversation(tabId: string, mode: Mode, now: number): Conversation {
  return {
    version: CONVERSATION_VERSION,
    tabId,
    mode,
    messages: [],
    allowApi: false,
    stepsUsed: 0,
    pendingContinue: false,
    planApproved: false,
    workingTabId: tabId,
    updatedAt: now,
  };
}

function isConversation(value: unknown): value is Conversation {
  if (!value || typeof value !== "object") return false;
  const record = value as Partial<Conversation>;
  return (
    record.version === CONVERSATION_VERSION &&
    typeof record.tabId === "string" &&
    isMode(record.mode) &&
    Array.isArray(record.messages) &&
    typeof record.stepsUsed === "number" &&
    typeof record.workingTabId === "string"
  );
}

export class ConversationStore {
  constructor(private readonly store: Store) {}

  key(tabId: string): string {
    return `${CONVERSATION_KEY_PREFIX}${tabId}`;
  }

  /** The stored conversation, or undefined if none (or if what is stored is not one). */
  async load(tabId: string): Promise<Conversation | undefined> {
    const value = await this.store.get(this.key(tabId));
    return isConversation(value) ? value : undefined;
  }

  async save(conversation: Conversation): Promise<void> {
    await this.store.set(this.key(conversation.tabId), conversation as unknown as JsonValue);
  }

  async remove(tabId: string): Promise<void> {
    await this.store.remove(this.key(tabId));
  }

  async tabIds(): Promise<string[]> {
    const keys = await this.store.keys(CONVERSATION_KEY_PREFIX);
    return keys.map((key) => key.slice(CONVERSATION_KEY_PREFIX.length));
  }
}
