/**
 * The sidebar's Record: what the person does in a tab, recorded by the page layer in each of
 * its frames (content script glue, RECORD_START_MESSAGE) and turned into a saved workflow by
 * @webbrain/agent's WorkflowRecording, the same steps `webbrain record` saves.
 *
 * Invariants:
 * - One recording per tab; its actions come only from that tab's content scripts.
 * - A new document of a recorded tab asks (RECORDING_QUERY_MESSAGE) and goes on recording.
 * - A document navigation's cause is the browser's transition type: a link or a form (the last
 *   click's doing: its step expects to navigate) or the person's own (the address bar, a
 *   bookmark: a navigate step). Committed navigations only, by which time the click that caused
 *   one has been reported.
 * - Stop saves the workflow into the list (workflow-library.ts) as one saved here (approved);
 *   a secret field's text was never sent by the page, so it is in nothing stored.
 */
import { type Workflow, WorkflowRecording } from "@webbrain/agent";
import type { RecordedAction } from "@webbrain/protocol";
import {
  isRecordedActionMessage,
  isRecordingQuery,
  RECORD_START_MESSAGE,
  RECORD_STOP_MESSAGE,
} from "../content/content-messages.js";
import { t } from "../shared/i18n.js";
import { addWorkflow } from "../workflows/workflow-library.js";

/** Transition types of a navigation the person started themselves, not a page's link or form. */
const PERSON_TRANSITIONS: ReadonlySet<string> = new Set([
  "typed",
  "auto_bookmark",
  "generated",
  "keyword",
  "keyword_generated",
  "start_page",
  "reload",
]);

export interface RecordingSaved {
  name: string;
  steps: number;
  params: string[];
}

export class PersonRecordings {
  readonly #tabs = new Map<number, WorkflowRecording>();

  constructor() {
    browser.webNavigation.onCommitted.addListener((details) => {
      const recording = this.#tabs.get(details.tabId);
      if (!recording || details.frameId !== 0) return;
      recording.navigationStarted(details.url, PERSON_TRANSITIONS.has(details.transitionType ?? ""));
    });
    browser.tabs.onRemoved.addListener((tabId) => this.#tabs.delete(tabId));
  }

  isRecording(tabId: number): boolean {
    return this.#tabs.has(tabId);
  }

  async start(tabId: number): Promise<{ recording: true }> {
    const tab = await browser.tabs.get(tabId);
    if (!this.#tabs.has(tabId)) this.#tabs.set(tabId, new WorkflowRecording(tab.url ?? ""));
    // Every frame of the tab: a frame's content script answers for itself.
    await browser.tabs.sendMessage(tabId, { type: RECORD_START_MESSAGE }).catch(() => undefined);
    return { recording: true };
  }

  /** Ends the tab's recording and saves it as a workflow named `name` (default: the page's host). */
  async stop(tabId: number, name?: string): Promise<RecordingSaved> {
    const recording = this.#tabs.get(tabId);
    if (!recording) throw new Error(t("recordNotRecording"));
    const last = (await browser.tabs
      .sendMessage(tabId, { type: RECORD_STOP_MESSAGE }, { frameId: 0 })
      .catch(() => undefined)) as { actions?: unknown } | undefined;
    for (const action of Array.isArray(last?.actions) ? last.actions : []) {
      if (typeof action === "string") this.#take(recording, action);
    }
    this.#tabs.delete(tabId);
    const workflow: Workflow = recording.toWorkflow(name ? { name } : {});
    await addWorkflow(workflow);
    return { name: workflow.name, steps: workflow.steps.length, params: workflow.params.map((p) => p.name) };
  }

  /**
   * The content scripts' messages (runtime.onMessage): an action of a recorded tab, or a new
   * document asking whether to record. Answers undefined for every other message.
   */
  handle(message: unknown, sender: browser.runtime.MessageSender): Promise<unknown> | undefined {
    const tabId = sender.tab?.id;
    if (isRecordingQuery(message))
      return Promise.resolve({ recording: tabId !== undefined && this.#tabs.has(tabId) });
    if (!isRecordedActionMessage(message)) return undefined;
    const recording = tabId === undefined ? undefined : this.#tabs.get(tabId);
    if (recording) this.#take(recording, message.action);
    return Promise.resolve({ success: true });
  }

  #take(recording: WorkflowRecording, text: string): void {
    let action: RecordedAction;
    try {
      action = JSON.parse(text) as RecordedAction;
    } catch {
      return;
    }
    recording.add(action);
  }
}
