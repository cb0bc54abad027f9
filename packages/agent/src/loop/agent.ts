/**
 * Agent: the loop of spec 000's processMessage, shared by the add-on and the runner.
 *
 * One task: the user's message (the first one enriched with URL, title, the site adapter and,
 * for vision models, a screenshot) -> up to maxSteps model turns -> each turn's tool calls
 * run as a batch through the ToolExecutor -> a text-only answer, `done`, `clarify`, a guard
 * stop, an error or abort ends it. At the step limit the task pauses; Continue resumes it.
 *
 * Invariants:
 * - The conversation is persisted through the Store after every step, and always in a state
 *   the provider accepts: every tool call has a result (skipped calls get one), and an
 *   aborted or failed model turn is closed by a short assistant note.
 * - One run per tab at a time; a second answers a `busy` error instead of interleaving.
 * - Abort (the AbortSignal) is honoured at any point: during the model call, while a tool or an
 *   approval is awaited (raceAbort), and between tool calls.
 *
 * This file is longer than most on purpose: it is the one place the run's control flow lives;
 * what each step is given (model-inputs), runs (tool-executor) and guards are in their modules.
 */
import type { AssistantMessage, ToolCall, UserMessage } from "@mariozechner/pi-ai";
import { type Mode, modeFitsTier } from "@webbrain/protocol";
import { adapterFor, SITE_ADAPTERS, type SiteAdapter } from "../adapters/site-adapters.js";
import { AgentError, isBrowserUnavailable } from "../errors.js";
import { urlsInText } from "../guards/ask-fetch-policy.js";
import { BlockedDone } from "../guards/blocked-done.js";
import { LoopDetector } from "../guards/loop-detector.js";
import { type PermissionApprover, PermissionGate } from "../guards/permission-gate.js";
import { isSecretResult } from "../guards/secret-values.js";
import { DuplicateSubmitGuard } from "../guards/submit-guard.js";
import { type LlmClient, PiAiClient } from "../providers/provider-client.js";
import type { ProviderConfig } from "../providers/provider-config.js";
import type { AgentScheduler } from "../scheduler/schedule-tools.js";
import { type ParsedSkill, parseSkills, type SkillDefinition, type SkillTool } from "../skills/skills.js";
import type { SkillHttp } from "../skills/skills-http.js";
import type { Store } from "../store.js";
import type { BrowserPort } from "../tools/browser-port.js";
import { type RunContext, ToolExecutor, type ToolOutcome } from "../tools/tool-executor.js";
import { withNote } from "../tools/tool-result.js";
import { devOnCompact } from "../tools/tool-selection.js";
import { raceAbort } from "./abort-race.js";
import type { AgentEventListener, RunResult, RunStatus } from "./agent-events.js";
import { agentFacilities } from "./agent-facilities.js";
import {
  EMERGENCY_KEEP_TAIL_MESSAGES,
  KEEP_TAIL_MESSAGES,
  needsTrim,
  pruneImages,
  trimAtChars,
  trimHistory,
} from "./context-manager.js";
import { type Conversation, ConversationStore, newConversation } from "./conversation.js";
import { DEFAULT_IMAGE_BUDGET, type ImageBudget, RunImageCounter } from "./image-budget.js";
import {
  assistantNote,
  attachPlan,
  enrichedTaskMessage,
  modelPrompt,
  modelSummarizer,
  modelTools,
  textOf,
} from "./model-inputs.js";
import {
  type PlanApprover,
  type PlanDecision,
  planFromAnswer,
  plannerPrompt,
  SUBMIT_PLAN_TOOL,
} from "./planner.js";

export const DEFAULT_MAX_STEPS = 130;
const PREVIEW_CHARS = 200;

export interface AgentOptions {
  port: BrowserPort;
  store: Store;
  provider: ProviderConfig;
  /** Defaults to pi-ai for `provider`; tests may inject another client. */
  llm?: LlmClient;
  /** Model turns per task before pausing for Continue (default 130). */
  maxSteps?: number;
  /** Plan before Act: needs `planApprover`. */
  planBeforeAct?: boolean;
  planApprover?: PlanApprover;
  /** Permission prompts; without one the gate allows everything (runner default, DESIGN.md). */
  approver?: PermissionApprover;
  adapters?: readonly SiteAdapter[];
  /** Appended to the system prompt (user instructions). */
  extraPrompt?: string;
  /**
   * API shortcut observer (api-observer.ts): the replay guidance for a tab's observed calls, ""
   * when none. The planner appends it only when the conversation has /allow-api.
   */
  apiShortcuts?: (tabId: string) => string;
  /** Custom skills: instructions for the prompt and declared HTTP tools. */
  skills?: readonly SkillDefinition[];
  /** The network skill tools use; default: fetch with credentials omitted (tests swap it). */
  skillHttp?: SkillHttp;
  /** Bounds on the images a conversation carries (image-budget.ts; default DEFAULT_IMAGE_BUDGET). */
  imageBudget?: Partial<ImageBudget>;
  /** A vision model gets a viewport screenshot after each action that worked (default off). */
  screenshotAfterActions?: boolean;
  /** Scheduling (schedule_task, schedule_resume) is offered only when this is given. */
  scheduler?: AgentScheduler;
  now?: () => number;
}

export interface MessageOptions {
  mode?: Mode;
  signal?: AbortSignal;
  onEvent?: AgentEventListener;
  /** Images the user attached to this message (sent only to vision models). */
  images?: readonly { data: string; mimeType: string }[];
}

export class Agent {
  private readonly llm: LlmClient;
  private readonly conversations = new Map<string, Conversation>();
  private readonly running = new Set<string>();
  private readonly convStore: ConversationStore;
  private readonly executor: ToolExecutor;
  private readonly now: () => number;
  readonly maxSteps: number;
  private readonly imageBudget: ImageBudget;
  /** Enabled skills as parsed; `errors` lists dropped tool declarations for a settings UI. */
  readonly skills: readonly ParsedSkill[];
  private readonly skillTools: ReadonlyMap<string, SkillTool>;

  constructor(private readonly options: AgentOptions) {
    if (options.planBeforeAct && !options.planApprover) {
      throw new AgentError(
        "config",
        "planBeforeAct needs a planApprover to show the plan to the user; pass one or turn Plan before Act off.",
      );
    }
    this.llm = options.llm ?? new PiAiClient(options.provider);
    this.now = options.now ?? Date.now;
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.imageBudget = { ...DEFAULT_IMAGE_BUDGET, ...options.imageBudget };
    this.convStore = new ConversationStore(options.store);
    this.skills = parseSkills(options.skills ?? []);
    this.skillTools = new Map(
      this.skills.flatMap((skill) => skill.tools.map((tool) => [tool.name, tool] as const)),
    );
    this.executor = new ToolExecutor({
      port: options.port,
      gate: new PermissionGate(options.store, options.approver),
      submitGuard: new DuplicateSubmitGuard(this.now),
      blockedDone: new BlockedDone(),
      skillTools: this.skillTools,
      ...(options.skillHttp ? { skillHttp: options.skillHttp } : {}),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    });
  }

  /** The tab's conversation (from memory, else restored from the Store). */
  async getConversation(tabId: string): Promise<Conversation | undefined> {
    const cached = this.conversations.get(tabId);
    if (cached) return cached;
    const stored = await this.convStore.load(tabId);
    if (stored) this.conversations.set(tabId, stored);
    return stored;
  }

  /** Forget the tab's conversation, its guards' memory and its blockedDone count. */
  async clearConversation(tabId: string): Promise<void> {
    const conversation = await this.getConversation(tabId);
    this.conversations.delete(tabId);
    this.executor.forgetTab(tabId);
    if (conversation && conversation.workingTabId !== tabId)
      this.executor.forgetTab(conversation.workingTabId);
    await this.convStore.remove(tabId);
  }

  /** Handle one user message in a tab: a task, `/allow-api`, or `continue` after the step limit. */
  async processMessage(tabId: string, text: string, options: MessageOptions = {}): Promise<RunResult> {
    return this.exclusive(tabId, options, async (conversation) => {
      let task = text.trim();
      const allowApi = /^\/allow-api\b\s*(on|off)?/i.exec(task);
      if (allowApi) {
        conversation.allowApi = allowApi[1]?.toLowerCase() !== "off";
        task = task.slice(allowApi[0].length).trim();
        if (!task) {
          await this.save(conversation);
          const state = conversation.allowApi ? "allowed" : "not allowed";
          return {
            ...this.result(
              "answered",
              `API mutations (POST/PUT/PATCH/DELETE via fetch_url) are ${state} in this conversation.`,
              conversation,
            ),
            allowApi: conversation.allowApi === true,
          };
        }
      }
      if (/^continue\.?$/i.test(task) && conversation.pendingContinue)
        return this.resume(conversation, options);

      const mode = options.mode ?? conversation.mode;
      if (!modeFitsTier(mode, this.options.provider.tier)) {
        const error = devOnCompact();
        return this.result("error", error.message, conversation, error);
      }
      conversation.mode = mode;
      await this.recordUserUrls(conversation, task, options.signal);
      const first = conversation.messages.length === 0;
      if (first) {
        const enriched = await enrichedTaskMessage(
          this.options.port,
          conversation.workingTabId,
          task,
          this.options.provider.vision,
          this.options.adapters ?? SITE_ADAPTERS,
          this.now(),
        );
        if (enriched.adapterId) conversation.adapterId = enriched.adapterId;
        conversation.messages.push(
          withImages(enriched.message, options.images, this.options.provider.vision),
        );
      } else {
        conversation.messages.push(
          withImages(
            { role: "user", content: task, timestamp: this.now() },
            options.images,
            this.options.provider.vision,
          ),
        );
      }
      conversation.stepsUsed = 0;
      conversation.pendingContinue = false;
      conversation.planApproved = false;
      delete conversation.plan;
      const run = this.runContext(conversation, options);
      if (run.planRequired) {
        const planned = await this.plan(conversation, task, options);
        if (planned) return planned;
      }
      await this.save(conversation);
      return this.steps(conversation, run, options);
    });
  }

  /**
   * The URLs this task's user gave: those in the message and the page the task starts on (the
   * page the user asked about). Ask fetches only these and the page's links (ask-fetch-policy.ts).
   */
  private async recordUserUrls(
    conversation: Conversation,
    task: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const tab = await this.options.port
      .getTab(conversation.workingTabId, signal ? { signal } : {})
      .catch(() => undefined);
    const given = [...urlsInText(task), ...(tab?.url ? [tab.url] : [])];
    conversation.userUrls = [...new Set([...(conversation.userUrls ?? []), ...given])];
  }

  /** Resume a task that stopped at the step limit. */
  async continueRun(tabId: string, options: MessageOptions = {}): Promise<RunResult> {
    return this.exclusive(tabId, options, (conversation) => {
      if (!conversation.pendingContinue) {
        return Promise.resolve(
          this.result("answered", "There is no paused task to continue in this tab.", conversation),
        );
      }
      return this.resume(conversation, options);
    });
  }

  private async resume(conversation: Conversation, options: MessageOptions): Promise<RunResult> {
    conversation.messages.push({ role: "user", content: "Continue the task.", timestamp: this.now() });
    conversation.stepsUsed = 0;
    conversation.pendingContinue = false;
    await this.save(conversation);
    return this.steps(conversation, this.runContext(conversation, options), options);
  }

  private async exclusive(
    tabId: string,
    options: MessageOptions,
    body: (conversation: Conversation) => Promise<RunResult>,
  ): Promise<RunResult> {
    if (this.running.has(tabId)) {
      const error = new AgentError(
        "busy",
        "A task is already running in this tab. Stop it first, or wait for it to finish.",
      );
      return { status: "error", text: error.message, steps: 0, error };
    }
    this.running.add(tabId);
    try {
      const conversation =
        (await this.getConversation(tabId)) ?? newConversation(tabId, options.mode ?? "act", this.now());
      this.conversations.set(tabId, conversation);
      options.onEvent?.({ type: "run_start", tabId, mode: options.mode ?? conversation.mode });
      const result = await body(conversation);
      options.onEvent?.({ type: "run_end", result });
      return result;
    } catch (caught) {
      // A broken Store or port (not the page, not the model): report it, never crash the caller.
      const error = new AgentError(
        "internal",
        `The run failed inside the agent: ${(caught as Error)?.message ?? String(caught)}. The conversation is kept as of its last saved step; try again.`,
      );
      const result: RunResult = { status: "error", text: error.message, steps: 0, error };
      options.onEvent?.({ type: "run_end", result });
      return result;
    } finally {
      this.running.delete(tabId);
    }
  }

  private runContext(conversation: Conversation, options: MessageOptions): RunContext {
    return {
      conversation,
      tier: this.options.provider.tier,
      vision: this.options.provider.vision,
      planRequired: this.options.planBeforeAct === true && conversation.mode !== "ask",
      loop: new LoopDetector(),
      malformedStreak: 0,
      unverifiedFrames: new Set(),
      images: new RunImageCounter(this.imageBudget.maxImagesPerRun),
      screenshotAfterActions: this.options.screenshotAfterActions === true,
      ...(options.signal ? { signal: options.signal } : {}),
      onNudge: ({ detector, message, subject, count }) =>
        options.onEvent?.({ type: "nudge", detector, message, subject, count }),
    };
  }

  /** Plan before Act. Returns a result when the run must end here (rejected, failed). */
  private async plan(
    conversation: Conversation,
    task: string,
    options: MessageOptions,
  ): Promise<RunResult | undefined> {
    let answer: AssistantMessage;
    try {
      answer = await this.llm.complete(
        {
          systemPrompt: `${modelPrompt(conversation.mode, this.options.provider, this.options.extraPrompt, this.skills)}\n\n${plannerPrompt(conversation.allowApi, this.options.apiShortcuts?.(conversation.workingTabId) ?? "")}`,
          messages: conversation.messages,
          tools: [SUBMIT_PLAN_TOOL],
        },
        options.signal ? { signal: options.signal } : {},
      );
    } catch (error) {
      return this.failure(conversation, error);
    }
    const plan = planFromAnswer(answer, task);
    options.onEvent?.({ type: "plan", plan });
    let decision: PlanDecision;
    try {
      decision = await raceAbort((this.options.planApprover as PlanApprover)(plan), options.signal);
    } catch (error) {
      return this.failure(conversation, error);
    }
    options.onEvent?.({ type: "plan_decision", approved: decision.approved });
    if (!decision.approved) {
      const feedback = decision.feedback ? ` Feedback: ${decision.feedback}` : "";
      const text = `Plan rejected; nothing was done.${feedback}`;
      conversation.messages.push(assistantNote(this.options.provider, text, this.now()));
      await this.save(conversation);
      return this.result("plan_rejected", text, conversation);
    }
    conversation.plan = plan;
    conversation.planApproved = true;
    attachPlan(conversation.messages.at(-1) as UserMessage, plan);
    return undefined;
  }

  private async steps(
    conversation: Conversation,
    run: RunContext,
    options: MessageOptions,
  ): Promise<RunResult> {
    const { signal, onEvent } = options;
    while (conversation.stepsUsed < this.maxSteps) {
      if (signal?.aborted) return this.aborted(conversation);
      onEvent?.({ type: "step", step: conversation.stepsUsed + 1, maxSteps: this.maxSteps });
      let answer: AssistantMessage;
      try {
        await this.manageContext(conversation, false, options);
        answer = await this.callModel(conversation, options);
      } catch (error) {
        return this.failure(conversation, error);
      }
      conversation.messages.push(answer);
      conversation.stepsUsed++;
      const text = textOf(answer);
      if (text) onEvent?.({ type: "assistant_text", text });
      const calls = answer.content.filter((block): block is ToolCall => block.type === "toolCall");
      if (calls.length === 0) {
        await this.save(conversation);
        return this.result("answered", text, conversation);
      }
      const ended = await this.batch(conversation, run, calls, options);
      await this.save(conversation);
      if (ended) return ended;
      if (signal?.aborted) return this.aborted(conversation);
    }
    conversation.pendingContinue = true;
    await this.save(conversation);
    return this.result(
      "step_limit",
      `Paused after ${this.maxSteps} steps without finishing. Send "continue" to keep going.`,
      conversation,
    );
  }

  /** Run one turn's tool calls in order. Returns a result if one of them ended the run. */
  private async batch(
    conversation: Conversation,
    run: RunContext,
    calls: ToolCall[],
    options: MessageOptions,
  ): Promise<RunResult | undefined> {
    let ended: RunResult | undefined;
    for (const call of calls) {
      let outcome: ToolOutcome;
      if (ended || options.signal?.aborted) {
        outcome = {
          content: [{ type: "text", text: `[${call.name} skipped] The run ended before this call.` }],
          isError: true,
        };
      } else {
        options.onEvent?.({ type: "tool_call", id: call.id, name: call.name, args: call.arguments });
        const adapterBefore = conversation.adapterId;
        try {
          outcome = await raceAbort(this.executor.execute(call, run), options.signal);
        } catch (error) {
          if (isBrowserUnavailable(error)) {
            // The browser is gone: no later call can run, so the model is not asked again.
            outcome = {
              content: [{ type: "text", text: `[${call.name} failed] ${error.message}` }],
              isError: true,
            };
            ended = this.result("error", error.message, conversation, error);
          } else {
            if (!(error instanceof AgentError) || error.kind !== "aborted") throw error;
            outcome = {
              content: [{ type: "text", text: `[${call.name} aborted] Stopped by the user while it ran.` }],
              isError: true,
            };
          }
        }
        outcome = await this.adapterNote(conversation, adapterBefore, outcome);
        if (outcome.end) ended = this.endResult(conversation, outcome.end);
      }
      const preview = outcome.content
        .map((block) => (block.type === "text" ? block.text : "[image]"))
        .join("");
      conversation.messages.push({
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: outcome.content,
        isError: outcome.isError,
        timestamp: this.now(),
      });
      options.onEvent?.({
        type: "tool_result",
        id: call.id,
        name: call.name,
        ok: !outcome.isError,
        preview: preview.slice(0, PREVIEW_CHARS),
        ...(isSecretResult(outcome.details) ? { secret: true } : {}),
      });
    }
    return ended;
  }

  /** After a call, if the tab is now on a site with another adapter, inject its guidance once. */
  private async adapterNote(
    conversation: Conversation,
    before: string | undefined,
    outcome: ToolOutcome,
  ): Promise<ToolOutcome> {
    const tab = await this.options.port.getTab(conversation.workingTabId).catch(() => undefined);
    const adapter = tab ? adapterFor(tab.url, this.options.adapters ?? SITE_ADAPTERS) : undefined;
    if (!adapter || adapter.id === before) return outcome;
    conversation.adapterId = adapter.id;
    return withNote(outcome, `Site guidance: ${adapter.guidance}`);
  }

  private endResult(conversation: Conversation, end: NonNullable<ToolOutcome["end"]>): RunResult {
    if (end.kind === "stop") return this.result("stopped", end.error.message, conversation, end.error);
    return this.result(end.kind, end.text, conversation);
  }

  private async callModel(conversation: Conversation, options: MessageOptions): Promise<AssistantMessage> {
    const call = () =>
      this.llm.complete(
        {
          systemPrompt: modelPrompt(
            conversation.mode,
            this.options.provider,
            this.options.extraPrompt,
            this.skills,
          ),
          messages: conversation.messages,
          tools: modelTools(
            conversation.mode,
            this.options.provider,
            this.skillTools.values(),
            this.options.port.capabilities,
            agentFacilities(this.options),
          ),
        },
        {
          ...(options.signal ? { signal: options.signal } : {}),
          onTextDelta: (delta) => options.onEvent?.({ type: "text_delta", delta }),
        },
      );
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof AgentError) || error.kind !== "context_overflow") throw error;
      // Emergency trim, then one retry: a second overflow is reported as it is.
      await this.manageContext(conversation, true, options);
      return call();
    }
  }

  private async manageContext(
    conversation: Conversation,
    emergency: boolean,
    options: MessageOptions,
  ): Promise<void> {
    conversation.messages = pruneImages(conversation.messages, this.imageBudget);
    const maxChars = trimAtChars(this.options.provider.contextWindow);
    if (!emergency && !needsTrim(conversation.messages, maxChars)) return;
    const summarize = modelSummarizer(this.llm, options.signal ? { signal: options.signal } : {}, this.now);
    const keep = emergency ? EMERGENCY_KEEP_TAIL_MESSAGES : KEEP_TAIL_MESSAGES;
    const trimmed = await trimHistory(conversation.messages, summarize, keep);
    if (trimmed.summarized === 0) return;
    conversation.messages = trimmed.messages;
    options.onEvent?.({
      type: "context_trimmed",
      summarized: trimmed.summarized,
      emergency,
      usedModel: trimmed.usedModel,
    });
    await this.save(conversation);
  }

  private async aborted(conversation: Conversation): Promise<RunResult> {
    const error = new AgentError("aborted", "Stopped by the user.");
    if (conversation.messages.at(-1)?.role === "user")
      conversation.messages.push(assistantNote(this.options.provider, "(stopped by the user)", this.now()));
    await this.save(conversation);
    return this.result("aborted", error.message, conversation, error);
  }

  private async failure(conversation: Conversation, error: unknown): Promise<RunResult> {
    if (error instanceof AgentError && error.kind === "aborted") return this.aborted(conversation);
    const typed =
      error instanceof AgentError
        ? error
        : new AgentError("provider_http", String((error as Error)?.message ?? error));
    if (conversation.messages.at(-1)?.role === "user")
      conversation.messages.push(
        assistantNote(this.options.provider, `(failed: ${typed.message})`, this.now()),
      );
    await this.save(conversation);
    return this.result("error", typed.message, conversation, typed);
  }

  private result(status: RunStatus, text: string, conversation: Conversation, error?: AgentError): RunResult {
    return { status, text, steps: conversation.stepsUsed, ...(error ? { error } : {}) };
  }

  private async save(conversation: Conversation): Promise<void> {
    conversation.updatedAt = this.now();
    await this.convStore.save(conversation);
  }
}

/** The user's attached images beside the message's text; dropped for a model without vision. */
function withImages(message: UserMessage, images: MessageOptions["images"], vision: boolean): UserMessage {
  if (!vision || !images || images.length === 0) return message;
  const content =
    typeof message.content === "string"
      ? [{ type: "text" as const, text: message.content }]
      : message.content;
  return {
    ...message,
    content: [
      ...content,
      ...images.map((image) => ({ type: "image" as const, data: image.data, mimeType: image.mimeType })),
    ],
  };
}
