/**
 * The messages between the add-on's pages (sidebar, settings) and its background page.
 *
 * Requests go through `browser.runtime.sendMessage` and always answer a `Reply`: failures come
 * back as `{ ok: false, error }` with a sentence for the user, never as a rejected promise with
 * a bare stack. Live run events go over a `runtime.Port` named RUN_PORT_NAME: the sidebar posts
 * one `subscribe` and gets a `snapshot` followed by every later event in order, so it can
 * never miss or repeat one.
 */

import type { TraceRecord } from "@webbrain/agent";
import type { Mode } from "@webbrain/protocol";
import type { Attachment } from "./attachments.js";
import type { OfferedFileSummary } from "./offered-files.js";
import type { JournalEntry, RunInputShown, RunSnapshot } from "./run-events.js";
import type { ProviderConfig, Settings } from "./settings.js";
import type { TranscriptItem } from "./transcript.js";

export const RUN_PORT_NAME = "webbrain-run";

export type Request =
  | { type: "get_settings" }
  | { type: "save_settings"; settings: Settings }
  | { type: "test_provider"; provider: ProviderConfig }
  | { type: "chat_start"; tabId: number; text: string; mode: Mode; attachments?: Attachment[] }
  | { type: "chat_continue"; tabId: number }
  | { type: "chat_stop"; tabId: number }
  | { type: "chat_clear"; tabId: number }
  /** `note`: what the person wrote in the prompt's text field (the take-over card). */
  | { type: "prompt_answer"; tabId: number; promptId: string; choiceId: string; note?: string }
  | { type: "get_payloads"; tabId: number }
  | { type: "list_grants" }
  | { type: "revoke_grant"; capability: string; origin: string }
  /** The tab's last finished run as trace records (to save it as a workflow). */
  | { type: "get_run_trace"; tabId: number }
  /** What "Ask WebBrain about this" attached for the tab (context-menu.ts); taken once. */
  | { type: "take_context_attachments"; tabId: number }
  /** A file the person picked to offer for the tab's page (upload_file may send it after asking). */
  | { type: "offer_file"; tabId: number; name: string; mime: string; data: ArrayBuffer }
  /** The person removed an offered file. */
  | { type: "withdraw_file"; tabId: number; name: string }
  /** Record: what the person does in the tab becomes a workflow (background/person-recordings.ts). */
  | { type: "record_start"; tabId: number }
  /** Stop recording the tab and save the workflow into the list. */
  | { type: "record_stop"; tabId: number }
  /** What input a run would use now: the companion's trusted input or synthetic events, and why. */
  | { type: "companion_status" };

export type Reply<T> = { ok: true; value: T } | { ok: false; error: string };

export interface ConnectionTestResult {
  /** Models the server lists (GET /models), if it lists any. */
  models: string[];
  /** Whether the configured model is among them (undefined when the server lists none). */
  modelListed: boolean | undefined;
  latencyMs: number;
  /** The test was a one-line generation (Azure, Bedrock), and the model answered it. */
  answered?: boolean;
}

export interface ReplyValues {
  get_settings: Settings;
  save_settings: Settings;
  test_provider: ConnectionTestResult;
  chat_start: { runId: string };
  chat_continue: { runId: string };
  chat_stop: { stopped: boolean };
  chat_clear: { cleared: true };
  prompt_answer: { accepted: boolean };
  /** Deep verbose: the tab's recorded model requests and answers, oldest first (JSON). */
  get_payloads: unknown[];
  list_grants: AlwaysGrant[];
  revoke_grant: { revoked: boolean };
  get_run_trace: TraceRecord[];
  take_context_attachments: Attachment[];
  offer_file: OfferedFileSummary[];
  withdraw_file: OfferedFileSummary[];
  record_start: { recording: true };
  record_stop: { name: string; steps: number; params: string[] };
  companion_status: RunInputShown;
}

/** An "always allow" answer the agent remembers: this capability on this site. */
export interface AlwaysGrant {
  capability: string;
  origin: string;
}

/** What a sidebar learns when it subscribes to a tab. */
export interface TabState {
  tabId: number;
  title: string;
  url: string;
  transcript: TranscriptItem[];
  /** The tab's current or last run (undefined before the first). */
  run: RunSnapshot | undefined;
  /** `/allow-api` was given in this tab's conversation. */
  allowApi: boolean;
  /** Files offered for the tab's page (sidebar "For the page"). */
  offeredFiles: OfferedFileSummary[];
  /** The sidebar's Record is recording this tab (person-recordings.ts). */
  recording?: boolean;
}

export type PortToBackground = { type: "subscribe"; tabId: number };

export type PortToSidebar =
  | { type: "snapshot"; state: TabState }
  | { type: "event"; tabId: number; entry: JournalEntry }
  /** The transcript changed outside a run (cleared): re-render from this. */
  | { type: "tab_state"; state: TabState }
  /** After a run: whether `/allow-api` now holds in the tab's conversation (the badge). */
  | { type: "allow_api"; tabId: number; allowApi: boolean }
  /** The context menu attached something for the tab: take it (take_context_attachments). */
  | { type: "context_attached"; tabId: number }
  /** The files offered for the tab's page changed (another panel of the same tab). */
  | { type: "offered_files"; tabId: number; files: OfferedFileSummary[] };

export function isRequest(value: unknown): value is Request {
  return (
    typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"
  );
}
