/**
 * What the add-on adds around every agent run, from outside the agent loop (RunManager calls
 * `begin` once per run and plugs in what it answers):
 * - the recipient guard (spec 000), always: the run's port goes through it, and an approved
 *   plan's messaging target (when the user's own request names the recipient) is pinned;
 * - the trace recorder, on every run: it watches the model, the port and the events; the tab's
 *   last finished trace stays in memory (the sidebar's "Save as workflow" reads it), and goes
 *   to the TraceStore only when the user turned recording on (traces page);
 * - the API shortcut observer's guidance for the planner (used only with /allow-api).
 */
import {
  type AgentEvent,
  type BrowserPort,
  type LlmClient,
  type MessagingRoute,
  RecipientGuard,
  recipientFromPlan,
  type TraceRecord,
  TraceRecorder,
  type TraceVerbosity,
} from "@webbrain/agent";
import { MESSAGING_ROUTES_KEY, protectedRoutes } from "../shared/messaging-routes.js";
import { type TraceSettings, type TraceStore, traceSettingsFrom } from "./trace-store.js";

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
  /** Each tab's last finished run, in memory only (one per tab; forgotten with the tab). */
  private readonly lastRuns = new Map<string, TraceRecord[]>();

  constructor(
    private readonly store: TraceStore,
    private readonly loadSettings: () => Promise<TraceSettings>,
    private readonly apiGuidance: (tabId: string) => string = () => "",
    private readonly loadExtraRoutes: () => Promise<unknown> = async () =>
      (await browser.storage.local.get(MESSAGING_ROUTES_KEY))[MESSAGING_ROUTES_KEY],
    private readonly guard: RecipientGuard = new RecipientGuard(),
  ) {}

  /** The tab's last finished run's records (undefined: none since the background page started). */
  lastTrace(tabId: string): TraceRecord[] | undefined {
    return this.lastRuns.get(tabId);
  }

  forgetTab(tabId: string): void {
    this.lastRuns.delete(tabId);
  }

  /** The built-in protected messaging routes plus the user's own lines (same format). */
  private async routes(): Promise<MessagingRoute[]> {
    return protectedRoutes(await this.loadExtraRoutes().catch(() => undefined));
  }

  static settingsFrom(area: browser.storage.StorageArea, key: string): () => Promise<TraceSettings> {
    return async () => traceSettingsFrom((await area.get(key))[key]);
  }

  async begin(start: RunTraceStart): Promise<RunTrace> {
    const settings = await this.loadSettings().catch(() => traceSettingsFrom(undefined));
    this.guard.useRoutes(await this.routes());
    const recorder = new TraceRecorder({
      task: start.task,
      mode: start.mode,
      url: start.url,
      provider: start.provider,
      model: start.model,
      verbose: start.verbose,
      // Step screenshots only for a run that is kept: they would be taken for nothing otherwise.
      ...(settings.enabled && settings.shotMaxBytes > 0
        ? { shots: { maxBytes: settings.shotMaxBytes } }
        : {}),
    });
    // A new task names its recipient afresh; a continued one keeps the pinned one.
    if (start.task !== "(continue)") this.guard.pin(start.tabId, undefined);
    return {
      llm: (inner) => recorder.llm(inner),
      port: (inner) => recorder.port(this.guard.wrap(inner)),
      apiShortcuts: (tabId) => this.apiGuidance(tabId),
      onEvent: (event) => {
        if (event.type === "plan") this.guard.pin(start.tabId, recipientFromPlan(event.plan, start.task));
        recorder.onEvent(event);
      },
      end: async (failure) => {
        if (failure !== undefined) recorder.fail(failure);
        this.lastRuns.set(start.tabId, recorder.records);
        if (!settings.enabled) return;
        await this.store.put(recorder.records, settings.maxBytes).catch((error: unknown) => {
          console.error("WebBrain: storing the trace failed", error);
        });
      },
    };
  }
}
