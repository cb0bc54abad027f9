/**
 * RunManager: detached runs, owned by the background page. The sidebar starts a run and may
 * close at once; the run goes on, and every event it makes is journaled (RunJournal ->
 * `runUi:<tabId>`), appended to the transcript when final (`tabChat:<tabId>`), and pushed to
 * whoever subscribes to the tab.
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

import {
  Agent,
  AgentError,
  type AgentEvent,
  type AgentOptions,
  type BrowserPort,
  decoratePort,
  mayStream,
  type PermissionAnswer,
  type PermissionRequest,
  type PersonAnswer,
  PiAiClient,
  type Plan,
  type PlanDecision,
  type RunResult,
  redactTypedArg,
  SecretScrubber,
  type Store,
  StreamingPolicyClient,
  typedValue,
} from "@webbrain/agent";
import type { Mode } from "@webbrain/protocol";
import { type Attachment, messageWithAttachments } from "../shared/attachments.js";
import { t } from "../shared/i18n.js";
import { type OfferedFileSummary, offeredFilesNote } from "../shared/offered-files.js";
import type { JournalEntry, PendingPrompt, RunEvent, RunSnapshot } from "../shared/run-events.js";
import type { Settings } from "../shared/settings.js";
import type { TranscriptItem } from "../shared/transcript.js";
import { stoppedError } from "./abort.js";
import type { RunInput } from "./companion-input.js";
import { addonLocalFiles } from "./local-files-setting.js";
import {
  agentErrorText,
  argsSummary,
  firstLine,
  nudgeText,
  planForApproval,
  resultText,
  TOOL_SUMMARY_CHARS,
} from "./panel-text.js";
import { type PayloadRecorder, RecordingLlmClient } from "./payload-recorder.js";
import { personAtHand } from "./person-at-hand.js";
import { toAgentProvider } from "./provider-mapping.js";
import type { RunTrace, RunTraceStart } from "./run-hooks.js";
import { type Clock, RunJournal, systemClock } from "./run-journal.js";
import type { TabSession, TabSessions } from "./tab-sessions.js";
import type { FileAttacher } from "./webext-browser-port.js";

const TOOL_DETAIL_CHARS = 2_000;
const MS_PER_MINUTE = 60_000;

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

export interface RunManagerDeps {
  sessions: TabSessions;
  loadSettings(): Promise<Settings>;
  port: BrowserPort;
  store: Store;
  /** Deep verbose: model payloads are recorded here while the verbose level is "deep". */
  payloads?: PayloadRecorder;
  clock?: Clock;
  newRunId?: () => string;
  /** Around each run: the recipient guard, and the trace recorder when recording is on. */
  hooks?: { begin(start: RunTraceStart): Promise<RunTrace | undefined> };
  /** A line for the system prompt naming the user's language (the model answers in it). */
  languageHint?: () => string;
  /**
   * The files a tab's chat offered for the page (sidebar "For the page"): their names go
   * with the person's message, and the run's upload_file sends them (checked before the gate).
   */
  offeredFiles?: {
    list(chatTabId: string): OfferedFileSummary[];
    /** `attach`: how the file gets into the page, when not the add-on's own way (the companion). */
    uploads(chatTabId: string, attach?: FileAttacher): Pick<BrowserPort, "uploadFile" | "checkUpload">;
  };
  /** Skills and the scheduler for each run (read at its start, so a skill imported now counts). */
  extraAgentOptions?: () => Promise<Pick<AgentOptions, "skills" | "scheduler" | "skillHttp">>;
  /**
   * Tells a person who is maybe not looking that a scheduled run waits for them (a browser
   * notification); `clear` takes it back once the wait is over.
   */
  personNeeded?: { notify(tabId: string, reason: string): void; clear(tabId: string): void };
  /** Trusted input through the companion, or the add-on's synthetic events (read per run). */
  runInput?: () => Promise<RunInput>;
}

/** What the person answered a prompt: the choice, and the words of its text field if it has one. */
interface PromptReply {
  choiceId: string;
  note: string;
}

interface ActiveRun {
  session: TabSession;
  journal: RunJournal;
  controller: AbortController;
  prompts: Map<string, { resolve(reply: PromptReply): void; refuse: string }>;
  /** Each call's arguments as JSON, raw (shown once the call proved not to type a secret). */
  toolArgs: Map<string, { raw: string; redacted: string }>;
  /** Secrets this run typed (secret-values.ts): cut out of every later event and item. */
  secrets: SecretScrubber;
  lastAssistantText: string | undefined;
  /** Set when a scheduled run's hand-over waited in vain: what the person was needed for. */
  neededPerson?: string;
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
    return this.active.get(tabId)?.journal.current();
  }

  /** Start a task (or `/allow-api`); resolves once the run is under way, not when it ends. */
  async start(
    tabId: string,
    text: string,
    mode: Mode,
    options: StartOptions = {},
  ): Promise<{ runId: string }> {
    // shownAs: what the chat shows as the opening message (a scheduled run is marked as such).
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
      options.shownAs ?? text,
      (agent, run) =>
        agent.processMessage(tabId, message, {
          ...run,
          ...(images.length > 0 ? { images } : {}),
        }),
      {
        interactive: options.interactive === true,
        unattended: options.unattended === true,
        attachmentNames: attachments.map((a) => a.name),
        offeredNames: offered.map((file) => file.name),
      },
    );
  }

  /** Continue after the step limit, a Stop or an error: the same conversation, one more go. */
  async continueRun(tabId: string): Promise<{ runId: string }> {
    const session = await this.deps.sessions.hydrate(tabId);
    const mode = session.run?.mode ?? "act";
    return this.launch(tabId, mode, undefined, async (agent, options) => {
      const conversation = await agent.getConversation(tabId);
      if (conversation?.pendingContinue) return agent.continueRun(tabId, options);
      return agent.processMessage(tabId, "Continue the task where you left off.", options);
    });
  }

  stop(tabId: string): boolean {
    const run = this.active.get(tabId);
    if (!run) return false;
    run.controller.abort();
    for (const [promptId, prompt] of run.prompts) this.answer(tabId, promptId, prompt.refuse);
    return true;
  }

  answer(tabId: string, promptId: string, choiceId: string, note = ""): boolean {
    const run = this.active.get(tabId);
    const prompt = run?.prompts.get(promptId);
    if (!run || !prompt) return false;
    run.prompts.delete(promptId);
    this.emit(tabId, run, { kind: "prompt_closed", promptId });
    prompt.resolve({ choiceId, note });
    return true;
  }

  private async launch(
    tabId: string,
    mode: Mode,
    userText: string | undefined,
    body: (agent: Agent, options: Parameters<Agent["processMessage"]>[2]) => Promise<RunResult>,
    how: {
      interactive: boolean;
      unattended?: boolean;
      attachmentNames?: string[];
      offeredNames?: string[];
    } = {
      interactive: false,
    },
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
    const sessions = this.deps.sessions;
    const journal = new RunJournal(
      tabId,
      runId,
      mode,
      { write: (_key, snap) => sessions.writeRun(tabId, snap) },
      this.clock,
    );
    const run: ActiveRun = {
      session,
      journal,
      controller: new AbortController(),
      prompts: new Map(),
      toolArgs: new Map(),
      secrets: new SecretScrubber(),
      lastAssistantText: undefined,
    };
    this.active.set(tabId, run);
    this.emit(tabId, run, { kind: "run_start", runId, mode });
    // In the same synchronous step as run_start, so no reader sees the run without its message.
    const opening: TranscriptItem =
      userText !== undefined
        ? {
            kind: "user",
            text: userText,
            mode,
            at: this.clock.now(),
            ...(how.attachmentNames?.length ? { attachments: how.attachmentNames } : {}),
            ...(how.offeredNames?.length ? { offered: how.offeredNames } : {}),
          }
        : { kind: "notice", text: t("noticeContinuing"), at: this.clock.now() };
    const openingWritten = this.commit(tabId, run, opening);

    const driven = this.drive(tabId, run, async () => {
      await openingWritten;
      // Built inside the run, so a provider the agent rejects ends this run with its message.
      const agentProvider = toAgentProvider(provider);
      const recorder = this.deps.payloads;
      const base = new PiAiClient(agentProvider);
      const recorded =
        settings.verbose === "deep" && recorder ? new RecordingLlmClient(base, recorder, tabId) : base;
      // Spec 000: only an interactive Ask on OpenAI Responses streams; Continue never does.
      const stream = mayStream(agentProvider, {
        mode,
        interactive: how.interactive,
        continued: userText === undefined,
        streamingEnabled: settings.streamResponses,
      });
      const llm = new StreamingPolicyClient(recorded, {
        stream,
        // Through the event chain, so the reset lands after every delta already queued.
        onStreamReset: () => void this.queue(run, () => this.emit(tabId, run, { kind: "text_reset" })),
      });
      const trace = await this.deps.hooks?.begin({
        tabId,
        task: userText ?? "(continue)",
        mode,
        url: (await this.deps.port.getTab(tabId).catch(() => undefined))?.url ?? "",
        provider: agentProvider.id,
        model: agentProvider.model,
        verbose: settings.verbose,
      });
      // The local-files setting as of this run's start (main.ts keeps the port's own current too).
      // ... and upload_file with the files this chat offered (whichever tab the run works in).
      // ... and pause_for_user with this run's take-over card.
      const waitMs = how.unattended ? settings.personWaitMinutes * MS_PER_MINUTE : undefined;
      // ... and, with the companion, every page action through the runner's BiDi port.
      const input = await this.deps.runInput?.();
      if (input) this.emit(tabId, run, { kind: "input", input: { kind: input.kind, detail: input.detail } });
      const port = decoratePort(this.deps.port, {
        ...input?.overrides,
        localFiles: addonLocalFiles(settings.allowFileUrls),
        ...this.deps.offeredFiles?.uploads(tabId, input?.attachFile),
        // (person_at_hand joins the input's capabilities: trusted input keeps saying so).
        ...personAtHand(
          { capabilities: input?.overrides.capabilities ?? this.deps.port.capabilities },
          (message) => this.takeOver(tabId, run, message, waitMs),
        ),
      });
      const agent = new Agent({
        port: trace ? trace.port(port) : port,
        store: this.deps.store,
        provider: agentProvider,
        llm,
        ...(this.deps.languageHint ? { extraPrompt: this.deps.languageHint() } : {}),
        ...(await this.deps.extraAgentOptions?.()),
        ...(trace ? { llm: trace.llm(llm), apiShortcuts: trace.apiShortcuts } : {}),
        maxSteps: settings.maxSteps,
        planBeforeAct: settings.planBeforeAct,
        screenshotAfterActions: settings.screenshotAfterActions,
        planApprover: (plan) => this.askPlan(tabId, run, plan),
        approver: (request) => this.askPermission(tabId, run, request),
      });
      const onEvent = (event: AgentEvent) => {
        trace?.onEvent(event);
        void this.onAgentEvent(tabId, run, event);
      };
      try {
        const result = await body(agent, { mode, signal: run.controller.signal, onEvent });
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

  /**
   * A run that has sent run_end (the panel shows Continue and Send again) is still writing its
   * last journal entry: a click that comes in that window waits for the write instead of being
   * told the tab is busy.
   */
  private async endedRunSettled(tabId: string): Promise<void> {
    const run = this.active.get(tabId);
    if (run && run.journal.status !== "running") {
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
      await this.finish(tabId, run, result);
    } finally {
      this.active.delete(tabId);
    }
  }

  private async finish(tabId: string, run: ActiveRun, result: RunResult): Promise<void> {
    // Agent events are delivered without awaiting; let their writes land first.
    await this.pending(run);
    const now = this.clock.now();
    const text = resultText(result).trim();
    let end: Extract<RunEvent, { kind: "run_end" }>;
    switch (result.status) {
      case "done":
      case "answered":
      case "clarify":
        if (text !== "" && text !== run.lastAssistantText) {
          await this.commit(tabId, run, { kind: "assistant", text, at: now });
        }
        end = { kind: "run_end", status: "done" };
        break;
      case "aborted":
        if (run.neededPerson !== undefined) {
          const notice = t("noticeNeededPerson", run.neededPerson);
          await this.commit(tabId, run, { kind: "notice", text: notice, at: now });
          end = { kind: "run_end", status: "stopped", message: notice, needsPerson: true };
          break;
        }
        await this.commit(tabId, run, {
          kind: "notice",
          text: t("noticeStopped"),
          at: now,
        });
        end = { kind: "run_end", status: "stopped", message: t("stoppedShort") };
        break;
      case "step_limit":
      case "stopped": {
        const notice = resultText(result);
        await this.commit(tabId, run, { kind: "notice", text: notice, at: now });
        end = { kind: "run_end", status: "stopped", message: notice };
        break;
      }
      case "plan_rejected":
        await this.commit(tabId, run, { kind: "notice", text: resultText(result), at: now });
        end = { kind: "run_end", status: "done" };
        break;
      case "error": {
        const failure = resultText(result);
        await this.commit(tabId, run, { kind: "error", text: failure, at: now });
        end = { kind: "run_end", status: "error", message: failure };
        break;
      }
    }
    this.emit(tabId, run, { ...end, ending: result.status });
    await run.journal.settled().catch(() => undefined);
  }

  private eventChain = new WeakMap<ActiveRun, Promise<void>>();

  private pending(run: ActiveRun): Promise<void> {
    return this.eventChain.get(run) ?? Promise.resolve();
  }

  /** Agent events are handled one after another, in the order the agent made them. */
  private onAgentEvent(tabId: string, run: ActiveRun, event: AgentEvent): Promise<void> {
    return this.queue(run, () => this.translate(tabId, run, event));
  }

  private queue(run: ActiveRun, work: () => Promise<void> | void): Promise<void> {
    const next = this.pending(run)
      .then(work)
      .catch(() => undefined);
    this.eventChain.set(run, next);
    return next;
  }

  private async translate(tabId: string, run: ActiveRun, event: AgentEvent): Promise<void> {
    const now = this.clock.now();
    switch (event.type) {
      case "step":
        this.emit(tabId, run, { kind: "status", text: t("statusStep", event.step, event.maxSteps) });
        break;
      case "text_delta":
        this.emit(tabId, run, { kind: "text_delta", text: event.delta });
        break;
      case "assistant_text":
        run.lastAssistantText = event.text.trim();
        await this.commit(tabId, run, { kind: "assistant", text: event.text, at: now });
        break;
      case "tool_call": {
        // Whether the field is secret is known only from the result: until then the journal
        // (storage.session, read by a reopened sidebar) shows no typed text.
        const redacted = JSON.stringify(redactTypedArg(event.name, event.args));
        run.toolArgs.set(event.id, { raw: JSON.stringify(event.args), redacted });
        // A turn that streamed text and then called a tool: keep the text, then the card.
        if (run.journal.current().streamText !== "") this.emit(tabId, run, { kind: "text_reset" });
        this.emit(tabId, run, {
          kind: "tool_start",
          call: { callId: event.id, name: event.name, args: redacted },
        });
        break;
      }
      case "tool_result": {
        const call = run.toolArgs.get(event.id);
        if (event.secret && call) {
          const typed = typedValue(event.name, JSON.parse(call.raw) as Record<string, unknown>);
          if (typed !== undefined) run.secrets.add(typed);
        }
        const args = (event.secret ? call?.redacted : call?.raw) ?? "{}";
        await this.commit(tabId, run, {
          kind: "tool",
          callId: event.id,
          name: event.name,
          args,
          success: event.ok,
          // What the call did when it worked; why it failed when it did not.
          summary: event.ok ? argsSummary(args) : firstLine(event.preview, TOOL_SUMMARY_CHARS),
          detail: event.preview.slice(0, TOOL_DETAIL_CHARS),
          at: now,
        });
        break;
      }
      case "nudge":
        await this.commit(tabId, run, { kind: "notice", text: nudgeText(event), at: now });
        break;
      case "context_trimmed":
        await this.commit(tabId, run, {
          kind: "notice",
          text: t("noticeSummarized", event.summarized),
          at: now,
        });
        break;
      case "plan_decision":
        await this.commit(tabId, run, {
          kind: "notice",
          text: event.approved ? t("planApproved") : t("planRejected"),
          at: now,
        });
        break;
      case "run_start":
      case "run_end":
      case "plan":
        break;
    }
  }

  /** Add a final transcript item and announce it in one synchronous step; then store it. */
  private async commit(tabId: string, run: ActiveRun, given: TranscriptItem): Promise<void> {
    const item = run.secrets.scrub(given);
    const written = this.deps.sessions.appendTo(run.session, [item]);
    this.emit(tabId, run, { kind: "item", item });
    await written;
  }

  private emit(tabId: string, run: ActiveRun, event: RunEvent): void {
    if (run.journal.status !== "running") return;
    const entry = run.journal.append(run.secrets.scrub(event));
    for (const listener of this.listeners) listener(tabId, entry);
  }

  private ask(
    tabId: string,
    run: ActiveRun,
    prompt: Omit<PendingPrompt, "promptId">,
    refuse: string,
  ): Promise<PromptReply> {
    if (run.controller.signal.aborted) return Promise.resolve({ choiceId: refuse, note: "" });
    const promptId = `prompt-${++this.promptCounter}`;
    return new Promise<PromptReply>((resolve) => {
      run.prompts.set(promptId, { resolve, refuse });
      this.emit(tabId, run, { kind: "prompt", prompt: { promptId, ...prompt } });
    });
  }

  /**
   * pause_for_user: the take-over card, answered by Continue with the person's note. `waitMs`
   * (scheduled runs) bounds the wait: the person is notified, and when nobody came in time
   * the run stops saying it needed a person.
   */
  private async takeOver(
    tabId: string,
    run: ActiveRun,
    message: string,
    waitMs: number | undefined,
  ): Promise<PersonAnswer> {
    const reason = message.trim() || t("takeoverNoReason");
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (waitMs !== undefined) {
      this.deps.personNeeded?.notify(tabId, reason);
      timer = setTimeout(() => {
        run.neededPerson = reason;
        this.stop(tabId);
      }, waitMs);
    }
    try {
      const reply = await this.ask(
        tabId,
        run,
        {
          kind: "takeover",
          title: t("takeoverTitle"),
          body: reason,
          note: { label: t("takeoverNoteLabel") },
          choices: [{ id: "continue", label: t("takeoverContinue") }],
        },
        "stop",
      );
      // Stop (or the scheduled wait running out) answers "stop": the call ends as stopped.
      if (reply.choiceId !== "continue") throw stoppedError();
      return { resumed: true, said: reply.note.trim() };
    } finally {
      clearTimeout(timer);
      if (waitMs !== undefined) this.deps.personNeeded?.clear(tabId);
    }
  }

  private async askPlan(tabId: string, run: ActiveRun, plan: Plan): Promise<PlanDecision> {
    const { choiceId: choice } = await this.ask(
      tabId,
      run,
      {
        kind: "plan",
        title: t("planPromptTitle"),
        body: planForApproval(plan),
        choices: [
          { id: "approve", label: t("planApprove") },
          { id: "reject", label: t("planReject") },
        ],
      },
      "reject",
    );
    return choice === "approve" ? { approved: true } : { approved: false };
  }

  /**
   * Asks the person at the tab's sidebar for a Firefox optional permission (webext-history.ts):
   * true once they allowed it. Without a run in the tab there is nobody to ask: false.
   */
  async askBrowserPermission(tabId: string, permission: string): Promise<boolean> {
    const run = this.active.get(tabId);
    if (!run) return false;
    const { choiceId: choice } = await this.ask(
      tabId,
      run,
      {
        kind: "browser_permission",
        browserPermission: permission,
        title: t("browserPermissionTitle"),
        body: t("browserPermissionHistoryBody"),
        choices: [
          { id: "allow", label: t("browserPermissionAllow") },
          { id: "deny", label: t("deny") },
        ],
      },
      "deny",
    );
    return choice === "allow";
  }

  private async askPermission(
    tabId: string,
    run: ActiveRun,
    request: PermissionRequest,
  ): Promise<PermissionAnswer> {
    const { choiceId: choice } = await this.ask(
      tabId,
      run,
      {
        kind: "permission",
        title: t("permissionPromptTitle", request.capability, request.origin),
        body: request.detail.startsWith(request.tool) ? request.detail : `${request.tool}: ${request.detail}`,
        choices: [
          { id: "once", label: t("allowOnce") },
          { id: "always", label: t("allowAlways") },
          { id: "deny", label: t("deny") },
        ],
      },
      "deny",
    );
    return choice === "once" || choice === "always" ? choice : "deny";
  }
}
