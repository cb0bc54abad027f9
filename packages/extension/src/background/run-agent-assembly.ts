/**
 * The add-on's Agent for one run, assembled from the settings as of the run's start: the model
 * client (payload recording, the streaming policy), the trace and recipient guard (run-hooks.ts),
 * and the run's own port (local files, offered uploads, pause_for_user, companion input).
 *
 * Invariants:
 * - Called inside the run, so a provider the agent rejects ends that run with its message.
 * - Spec 000: only an interactive Ask on OpenAI Responses streams; Continue never does.
 * - The shared port is never changed: each run decorates its own view of it (decoratePort).
 * - Every question goes to the run's prompts (`RunSeams`); nothing here asks anyone.
 */
import {
  Agent,
  type AgentOptions,
  type BrowserPort,
  decoratePort,
  mayStream,
  type PermissionApprover,
  type PersonAnswer,
  PiAiClient,
  type PlanApprover,
  type Store,
  StreamingPolicyClient,
} from "@webbrain/agent";
import type { Mode } from "@webbrain/protocol";
import type { OfferedFileSummary } from "../shared/offered-files.js";
import type { ProviderConfig, Settings } from "../shared/settings.js";
import type { RunInput } from "./companion-input.js";
import { addonLocalFiles } from "./local-files-setting.js";
import { type PayloadRecorder, RecordingLlmClient } from "./payload-recorder.js";
import { personAtHand } from "./person-at-hand.js";
import { toAgentProvider } from "./provider-mapping.js";
import type { RunTrace, RunTraceStart } from "./run-hooks.js";
import type { FileAttacher } from "./webext-browser-port.js";

const MS_PER_MINUTE = 60_000;

/** What every run shares (RunManager's deps). */
export interface RunAgentDeps {
  port: BrowserPort;
  store: Store;
  /** Deep verbose: model payloads are recorded here while the verbose level is "deep". */
  payloads?: PayloadRecorder;
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
  /** Trusted input through the companion, or the add-on's synthetic events (read per run). */
  runInput?: () => Promise<RunInput>;
}

/** The run this agent is for. */
export interface RunAgentRequest {
  tabId: string;
  mode: Mode;
  settings: Settings;
  provider: ProviderConfig;
  /** The person's message; undefined for Continue. */
  task: string | undefined;
  /** A person started it from the panel (only such runs may stream). */
  interactive: boolean;
  /** Nobody may be watching: a take-over waits at most Settings' personWaitMinutes. */
  unattended: boolean;
}

/** What the run answers for: the questions, and what the sidebar is told on the way. */
export interface RunSeams {
  planApprover: PlanApprover;
  approver: PermissionApprover;
  /** pause_for_user; `waitMs` bounds the wait of an unattended run. */
  takeOver(message: string, waitMs: number | undefined): Promise<PersonAnswer>;
  /** A streamed answer turned into a tool call: the streamed text is reset. */
  onStreamReset(): void;
  /** How this run's page actions reach the page (the sidebar says it). */
  onInput(input: RunInput): void;
}

export async function assembleRunAgent(
  deps: RunAgentDeps,
  request: RunAgentRequest,
  seams: RunSeams,
): Promise<{ agent: Agent; trace: RunTrace | undefined }> {
  const { tabId, mode, settings } = request;
  const agentProvider = toAgentProvider(request.provider);
  const base = new PiAiClient(agentProvider);
  const recorded =
    settings.verbose === "deep" && deps.payloads ? new RecordingLlmClient(base, deps.payloads, tabId) : base;
  const stream = mayStream(agentProvider, {
    mode,
    interactive: request.interactive,
    continued: request.task === undefined,
    streamingEnabled: settings.streamResponses,
  });
  const llm = new StreamingPolicyClient(recorded, { stream, onStreamReset: seams.onStreamReset });
  const trace = await deps.hooks?.begin({
    tabId,
    task: request.task ?? "(continue)",
    mode,
    url: (await deps.port.getTab(tabId).catch(() => undefined))?.url ?? "",
    provider: agentProvider.id,
    model: agentProvider.model,
    verbose: settings.verbose,
  });
  const waitMs = request.unattended ? settings.personWaitMinutes * MS_PER_MINUTE : undefined;
  const input = await deps.runInput?.();
  if (input) seams.onInput(input);
  // The local-files setting as of this run's start (main.ts keeps the port's own current too),
  // upload_file with the files this chat offered (whichever tab the run works in),
  // pause_for_user with this run's take-over card, and, with the companion, every page action
  // through the runner's BiDi port.
  const port = decoratePort(deps.port, {
    ...input?.overrides,
    localFiles: addonLocalFiles(settings.allowFileUrls),
    ...deps.offeredFiles?.uploads(tabId, input?.attachFile),
    // (person_at_hand joins the input's capabilities: trusted input keeps saying so).
    ...personAtHand({ capabilities: input?.overrides.capabilities ?? deps.port.capabilities }, (message) =>
      seams.takeOver(message, waitMs),
    ),
  });
  const agent = new Agent({
    port: trace ? trace.port(port) : port,
    store: deps.store,
    provider: agentProvider,
    llm,
    ...(deps.languageHint ? { extraPrompt: deps.languageHint() } : {}),
    ...(await deps.extraAgentOptions?.()),
    ...(trace ? { llm: trace.llm(llm), apiShortcuts: trace.apiShortcuts } : {}),
    maxSteps: settings.maxSteps,
    planBeforeAct: settings.planBeforeAct,
    screenshotAfterActions: settings.screenshotAfterActions,
    planApprover: seams.planApprover,
    approver: seams.approver,
  });
  return { agent, trace };
}
