/**
 * RunManager: detached runs, owned by the background page. The sidebar starts a run and may
 * close at once; the run goes on, and every event it makes is journaled (RunJournal ->
 * `runUi:<tabId>`), appended to the transcript when final (`tabChat:<tabId>`), and pushed to
 * whoever subscribes to the tab.
 *
 * This class owns the runs' lifecycle; the agent is assembled per run in run-agent-assembly.ts,
 * its events journaled by run-log.ts, and its questions to the person brokered by
 * run-prompts.ts.
 *
 * Invariants:
 * - At most one run per tab; a second start is refused with a sentence, never interleaved.
 * - Every run ends with exactly one `run_end` event, also when the agent throws.
 * - A transcript item enters the in-memory transcript in the same synchronous step as its
 *   journal event, so a subscriber that reads both at once sees each item exactly once (in
 *   the transcript, with the event's seq already covered by the snapshot); the storage write
 *   follows.
 * - Stop aborts the agent and answers any open prompt with its refusing choice.
 * - pause_for_user shows a take-over card (person-at-hand.ts) and waits for Continue. A scheduled
 *   run also notifies the person and waits at most Settings' personWaitMinutes; then it stops
 *   with a notice (and a `run_end` marked needsPerson) saying it needed a person.
 */

import { type Agent, AgentError, type AgentEvent, type RunResult } from "@webbrain/agent";
import type { Mode } from "@webbrain/protocol";
import { type Attachment, messageWithAttachments } from "../shared/attachments.js";
import { t } from "../shared/i18n.js";
import { offeredFilesNote } from "../shared/offered-files.js";
import type { JournalEntry, RunSnapshot } from "../shared/run-events.js";
import type { Settings } from "../shared/settings.js";
import type { TranscriptItem } from "../shared/transcript.js";
import { agentErrorText } from "./panel-text.js";
import { assembleRunAgent, type RunAgentDeps } from "./run-agent-assembly.js";
import { type Clock, systemClock } from "./run-journal.js";
import { RunLog } from "./run-log.js";
import { type BoundedWait, RunPrompts } from "./run-prompts.js";
import type { TabSessions } from "./tab-sessions.js";

export interface StartOptions {
  /** What the chat shows as the opening message (a scheduled run is marked as such). */
  shownAs?: string;
  /** Files attached to the message (text goes into it, images beside it). */
  attachments?: Attachment[];
  /** A person started it from the panel (only such runs may stream; scheduled runs do not). */
  interactive?: boolean;
  /**
   * Nobody may be watching (a scheduled job): a hand-over to a person notifies them and waits
   * at most Settings' personWaitMinutes.
   */
  unattended?: boolean;
}

export type RunListener = (tabId: string, entry: JournalEntry) => void;

export interface RunManagerDeps extends RunAgentDeps {
  sessions: TabSessions;
  loadSettings(): Promise<Settings>;
  clock?: Clock;
  newRunId?: () => string;
  /**
   * Tells a person who is maybe not looking that a scheduled run waits for them (a browser
   * notification); `clear` takes it back once the wait is over.
   */
  personNeeded?: { notify(tabId: string, reason: string): void; clear(tabId: string): void };
}

interface ActiveRun {
  log: RunLog;
  controller: AbortController;
  prompts: RunPrompts;
  /** Set when a scheduled run's hand-over waited in vain: what the person was needed for. */
  neededPerson?: string;
}

/** How the run's opening looks in the chat: what the person sent, or that it continues. */
interface Opening {
  /** The person's message as shown; undefined for Continue. */
  userText: string | undefined;
  attachmentNames?: string[];
  offeredNames?: string[];
}

export class RunError extends Error {
  override name = "RunError";
}

export class RunManager {
  private readonly active = new Map<string, ActiveRun>();
  private readonly listeners = new Set<RunListener>();
  private readonly clock: Clock;
  private readonly newRunId: () => string;
  private promptCounter = 0;

  constructor(private readonly deps: RunManagerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.newRunId =
      deps.newRunId ?? (() => `run-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`);
  }

  onEvent(listener: RunListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  isRunning(tabId: string): boolean {
    return this.active.has(tabId);
  }

  /** The live run's snapshot from memory (undefined when no run is active in the tab). */
  liveSnapshot(tabId: string): RunSnapshot | undefined {
    return this.active.get(tabId)?.log.journal.current();
  }

  /** Start a task (or `/allow-api`); resolves once the run is under way, not when it ends. */
  async start(
    tabId: string,
    text: string,
    mode: Mode,
    options: StartOptions = {},
  ): Promise<{ runId: string }> {
    const attachments = options.attachments ?? [];
    const images = attachments.flatMap((a) =>
      a.kind === "image" ? [{ data: a.dataBase64, mimeType: a.mimeType }] : [],
    );
    // The model learns the offered files' names with the message the person sends beside them.
    const offered = this.deps.offeredFiles?.list(tabId) ?? [];
    const message = messageWithAttachments(text, attachments) + offeredFilesNote(offered);
    return this.launch(
      tabId,
      mode,
      {
        userText: options.shownAs ?? text,
        attachmentNames: attachments.map((a) => a.name),
        offeredNames: offered.map((file) => file.name),
      },
      (agent, run) =>
        agent.processMessage(tabId, message, {
          ...run,
          ...(images.length > 0 ? { images } : {}),
        }),
      { interactive: options.interactive === true, unattended: options.unattended === true },
    );
  }

  /** Continue after the step limit, a Stop or an error: the same conversation, one more go. */
  async continueRun(tabId: string): Promise<{ runId: string }> {
    const session = await this.deps.sessions.hydrate(tabId);
    const mode = session.run?.mode ?? "act";
    return this.launch(tabId, mode, { userText: undefined }, async (agent, options) => {
      const conversation = await agent.getConversation(tabId);
      if (conversation?.pendingContinue) return agent.continueRun(tabId, options);
      return agent.processMessage(tabId, "Continue the task where you left off.", options);
    });
  }

  stop(tabId: string): boolean {
    const run = this.active.get(tabId);
    if (!run) return false;
    run.controller.abort();
    run.prompts.refuseAll();
    return true;
  }

  answer(tabId: string, promptId: string, choiceId: string, note = ""): boolean {
    return this.active.get(tabId)?.prompts.answer(promptId, choiceId, note) ?? false;
  }

  /**
   * Asks the person at the tab's sidebar for a Firefox optional permission (webext-history.ts):
   * true once they allowed it. Without a run in the tab there is nobody to ask: false.
   */
  async askBrowserPermission(tabId: string, permission: string): Promise<boolean> {
    const run = this.active.get(tabId);
    if (!run) return false;
    return run.prompts.browserPermission(permission);
  }

  private async launch(
    tabId: string,
    mode: Mode,
    opening: Opening,
    body: (agent: Agent, options: Parameters<Agent["processMessage"]>[2]) => Promise<RunResult>,
    how: { interactive: boolean; unattended?: boolean } = { interactive: false },
  ): Promise<{ runId: string }> {
    await this.endedRunSettled(tabId);
    if (this.active.has(tabId)) {
      throw new RunError(t("errorBusy"));
    }
    const settings = await this.deps.loadSettings();
    const provider = settings.providers.find((p) => p.id === settings.activeProviderId);
    if (!provider) {
      throw new RunError(t("errorNoProvider"));
    }
    // Hydrate first: the next message must continue the conversation the panel shows.
    const session = await this.deps.sessions.hydrate(tabId);
    if (this.active.has(tabId)) {
      throw new RunError(t("errorBusy"));
    }
    const runId = this.newRunId();
    const log = new RunLog({
      tabId,
      runId,
      mode,
      session,
      sessions: this.deps.sessions,
      clock: this.clock,
      publish: (entry) => {
        for (const listener of this.listeners) listener(tabId, entry);
      },
    });
    const controller = new AbortController();
    const prompts = new RunPrompts({
      emit: (event) => log.emit(event),
      signal: controller.signal,
      newPromptId: () => `prompt-${++this.promptCounter}`,
    });
    const run: ActiveRun = { log, controller, prompts };
    this.active.set(tabId, run);
    log.emit({ kind: "run_start", runId, mode });
    // In the same synchronous step as run_start, so no reader sees the run without its message.
    const openingWritten = log.commit(this.openingItem(opening, mode));

    const driven = this.drive(tabId, run, async () => {
      await openingWritten;
      const { agent, trace } = await assembleRunAgent(
        this.deps,
        {
          tabId,
          mode,
          settings,
          provider,
          task: opening.userText,
          interactive: how.interactive,
          unattended: how.unattended === true,
        },
        {
          planApprover: (plan) => prompts.plan(plan),
          approver: (request) => prompts.permission(request),
          takeOver: (message, waitMs) =>
            prompts.takeOver(
              message,
              waitMs === undefined ? undefined : this.boundedWait(tabId, run, waitMs),
            ),
          // Through the event chain, so the reset lands after every delta already queued.
          onStreamReset: () => void log.queue(() => log.emit({ kind: "text_reset" })),
          onInput: (input) => log.emit({ kind: "input", input: { kind: input.kind, detail: input.detail } }),
        },
      );
      const onEvent = (event: AgentEvent) => {
        trace?.onEvent(event);
        void log.onAgentEvent(event);
      };
      try {
        const result = await body(agent, { mode, signal: controller.signal, onEvent });
        await trace?.end();
        return result;
      } catch (error) {
        await trace?.end(error instanceof Error ? error.message : String(error));
        throw error;
      }
    });
    this.driving.set(run, driven);
    return { runId };
  }

  private openingItem(opening: Opening, mode: Mode): TranscriptItem {
    if (opening.userText === undefined) {
      return { kind: "notice", text: t("noticeContinuing"), at: this.clock.now() };
    }
    return {
      kind: "user",
      text: opening.userText,
      mode,
      at: this.clock.now(),
      ...(opening.attachmentNames?.length ? { attachments: opening.attachmentNames } : {}),
      ...(opening.offeredNames?.length ? { offered: opening.offeredNames } : {}),
    };
  }

  /** A scheduled run's take-over: the person is notified, and nobody in time stops the run. */
  private boundedWait(tabId: string, run: ActiveRun, waitMs: number): BoundedWait {
    return {
      waitMs,
      notify: (reason) => this.deps.personNeeded?.notify(tabId, reason),
      clear: () => this.deps.personNeeded?.clear(tabId),
      giveUp: (reason) => {
        run.neededPerson = reason;
        this.stop(tabId);
      },
    };
  }

  /**
   * A run that has sent run_end (the panel shows Continue and Send again) is still writing its
   * last journal entry: a click that comes in that window waits for the write instead of being
   * told the tab is busy.
   */
  private async endedRunSettled(tabId: string): Promise<void> {
    const run = this.active.get(tabId);
    if (run && run.log.journal.status !== "running") {
      await this.driving.get(run)?.catch(() => undefined);
    }
  }

  private readonly driving = new WeakMap<ActiveRun, Promise<void>>();

  private async drive(tabId: string, run: ActiveRun, work: () => Promise<RunResult>): Promise<void> {
    let result: RunResult;
    try {
      result = await work();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // The agent's own errors already say what to do; anything else is our bug.
      const text =
        error instanceof AgentError
          ? agentErrorText(error)
          : error instanceof Error && error.name === "AgentError"
            ? message
            : t("errorInternal", message);
      result = { status: "error", text, steps: 0 };
    }
    try {
      await run.log.finish(result, run.neededPerson);
    } finally {
      this.active.delete(tabId);
    }
  }
}
