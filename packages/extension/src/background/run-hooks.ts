/**
 * What the add-on adds around every agent run, from outside the agent loop (RunManager calls
 * `begin` once per run and plugs in what it answers):
 * - the recipient guard (spec 000), always: the run's port goes through it, and an approved
 *   plan's messaging target (when the user's own request names the recipient) is pinned;
 * - the trace recorder, when the user turned recording on (traces page): it watches the model,
 *   the port and the events, and the finished trace goes to the TraceStore;
 * - the API shortcut observer's guidance for the planner (used only with /allow-api).
 */
import {
  type AgentEvent,
  type BrowserPort,
  type LlmClient,
  type MessagingRoute,
  PROTECTED_MESSAGING_ROUTES,
  parseMessagingRoutes,
  RecipientGuard,
  recipientFromPlan,
  TraceRecorder,
  type TraceVerbosity,
} from "@webbrain/agent";
import { type TraceSettings, type TraceStore, traceSettingsFrom } from "./trace-store.js";

/**
 * Extra protected messaging routes, one `host /path-prefix label` line each (storage.local), on
 * top of the built-in list: a site the user messages on becomes protected with one line.
 */
export const MESSAGING_ROUTES_KEY = "messagingRoutes";

export interface RunTraceStart {
  tabId: string;
  task: string;
  mode: string;
  url: string;
  provider: string;
  model: string;
  verbose: TraceVerbosity;
}

/** What RunManager plugs in for one run. */
export interface RunTrace {
  llm(inner: LlmClient): LlmClient;
  port(inner: BrowserPort): BrowserPort;
  onEvent(event: AgentEvent): void;
  /** The API shortcut observer's replay guidance for a tab (the planner gates it on /allow-api). */
  apiShortcuts(tabId: string): string;
  /** The run is over (run_end seen, or the run threw): store the trace if one was recorded. */
  end(failure?: string): Promise<void>;
}

export class RunHooks {
  constructor(
    private readonly store: TraceStore,
    private readonly loadSettings: () => Promise<TraceSettings>,
    private readonly apiGuidance: (tabId: string) => string = () => "",
    private readonly loadExtraRoutes: () => Promise<unknown> = async () =>
      (await browser.storage.local.get(MESSAGING_ROUTES_KEY))[MESSAGING_ROUTES_KEY],
    private readonly guard: RecipientGuard = new RecipientGuard(),
  ) {}

  /** The built-in protected messaging routes plus the user's own lines (same format). */
  private async routes(): Promise<MessagingRoute[]> {
    const extra = await this.loadExtraRoutes().catch(() => undefined);
    if (typeof extra !== "string" || !extra.trim()) return [...PROTECTED_MESSAGING_ROUTES];
    try {
      return [...PROTECTED_MESSAGING_ROUTES, ...parseMessagingRoutes(extra)];
    } catch (error) {
      console.error("WebBrain: ignoring the extra messaging routes", error);
      return [...PROTECTED_MESSAGING_ROUTES];
    }
  }

  static settingsFrom(area: browser.storage.StorageArea, key: string): () => Promise<TraceSettings> {
    return async () => traceSettingsFrom((await area.get(key))[key]);
  }

  async begin(start: RunTraceStart): Promise<RunTrace> {
    const settings = await this.loadSettings().catch(() => traceSettingsFrom(undefined));
    this.guard.useRoutes(await this.routes());
    const recorder = settings.enabled
      ? new TraceRecorder({
          task: start.task,
          mode: start.mode,
          url: start.url,
          provider: start.provider,
          model: start.model,
          verbose: start.verbose,
        })
      : undefined;
    // A new task names its recipient afresh; a continued one keeps the pinned one.
    if (start.task !== "(continue)") this.guard.pin(start.tabId, undefined);
    return {
      llm: (inner) => (recorder ? recorder.llm(inner) : inner),
      port: (inner) => {
        const guarded = this.guard.wrap(inner);
        return recorder ? recorder.port(guarded) : guarded;
      },
      apiShortcuts: (tabId) => this.apiGuidance(tabId),
      onEvent: (event) => {
        if (event.type === "plan") this.guard.pin(start.tabId, recipientFromPlan(event.plan, start.task));
        recorder?.onEvent(event);
      },
      end: async (failure) => {
        if (!recorder) return;
        if (failure !== undefined) recorder.fail(failure);
        await this.store.put(recorder.records, settings.maxBytes).catch((error: unknown) => {
          console.error("WebBrain: storing the trace failed", error);
        });
      },
    };
  }
}
