/**
 * The runner's Agent, assembled in one place. `webbrain run`, a task file's tasks, a workflow
 * replay's handover and a MiniWoB++ episode say only what differs between them (the port, the
 * model client, the recipient guard, the trace, who approves); the wiring is the same for all.
 *
 * Invariants:
 * - Conversations live in memory (MemoryStore): a runner process keeps nothing between runs.
 * - A vision model sees the page after each action that worked, as in the add-on (its default).
 * - The port is decorated inside out: the caller's port, then the recipient guard, then the
 *   trace, so a trace keeps what the model was answered, the guard's refusals included.
 * - With a recipient guard, each plan pins the recipient it took from the task's own words; a
 *   run without a plan has none pinned, so a send on a protected route is refused (spec 000).
 * - Nobody is asked anything unless approvers are given (DESIGN.md: no person at hand by
 *   default); a plan approver turns Plan before Act on.
 */
import {
  Agent,
  type AgentEvent,
  type BrowserPort,
  type LlmClient,
  MemoryStore,
  type MessageOptions,
  type MessagingRoute,
  type PermissionApprover,
  PiAiClient,
  type PlanApprover,
  type ProviderConfig,
  RecipientGuard,
  type RunResult,
  recipientFromPlan,
  type SkillDefinition,
  type SkillHttp,
  type TraceRecorder,
} from "@webbrain/agent";

export interface RunnerAgentOptions {
  port: BrowserPort;
  provider: ProviderConfig;
  /** The model client (a CountingLlm to read the tokens spent); default: pi-ai for `provider`. */
  llm?: LlmClient;
  /** Guard sends on protected messaging routes; `routes` default to the built-in ones. */
  recipientGuard?: { routes?: readonly MessagingRoute[] };
  /** Records the model, the port and the events of the run. */
  trace?: TraceRecorder;
  /** Model turns per task (default: the agent's). */
  maxSteps?: number;
  skills?: readonly SkillDefinition[];
  /** How skill tools reach the network (`--zim`: Wikipedia's offline fallback). */
  skillHttp?: SkillHttp;
  /** The API shortcut observer's replay guidance for a tab (`--api-observer`). */
  apiShortcuts?: (tabId: string) => string;
  /** Shows the plan to a person before Act (`--plan`); given, Plan before Act is on. */
  planApprover?: PlanApprover;
  /** Asks a person before gated actions (`--confirm`); absent, the gate allows. */
  approver?: PermissionApprover;
}

export interface RunnerTaskOptions extends MessageOptions {
  /** What the model is sent when it is more than the task (included files); default: the task. */
  message?: string;
}

export interface RunnerAgent {
  /**
   * Does one task on a tab. The recipient guard reads the plan against `task` (the user's own
   * words), never against `message`, whose included files are not the user's request.
   */
  run(tabId: string, task: string, options?: RunnerTaskOptions): Promise<RunResult>;
}

export function assembleRunnerAgent(options: RunnerAgentOptions): RunnerAgent {
  const { trace, provider } = options;
  const guard = options.recipientGuard ? new RecipientGuard(options.recipientGuard.routes) : undefined;
  const guardedPort = guard ? guard.wrap(options.port) : options.port;
  const llm = options.llm ?? new PiAiClient(provider);
  const agent = new Agent({
    port: trace ? trace.port(guardedPort) : guardedPort,
    store: new MemoryStore(),
    provider,
    llm: trace ? trace.llm(llm) : llm,
    screenshotAfterActions: provider.vision,
    ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
    ...(options.skills?.length ? { skills: options.skills } : {}),
    ...(options.skillHttp ? { skillHttp: options.skillHttp } : {}),
    ...(options.apiShortcuts ? { apiShortcuts: options.apiShortcuts } : {}),
    ...(options.planApprover ? { planBeforeAct: true, planApprover: options.planApprover } : {}),
    ...(options.approver ? { approver: options.approver } : {}),
  });
  return {
    run: (tabId, task, { message, onEvent, ...rest } = {}) =>
      agent.processMessage(tabId, message ?? task, {
        ...rest,
        onEvent: (event: AgentEvent) => {
          onEvent?.(event);
          if (guard && event.type === "plan") guard.pin(tabId, recipientFromPlan(event.plan, task));
          trace?.onEvent(event);
        },
      }),
  };
}
