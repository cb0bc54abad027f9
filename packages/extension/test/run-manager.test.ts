/**
 * RunManager in Node: the detached-run rules that do not need a browser, against a scripted
 * LLM over real HTTP. The browser seam (BrowserPort) is a small stand-in that only knows one
 * tab, because these runs never act on a page.
 */

import type { BrowserPort, PageResult, TabInfo } from "@webbrain/agent";
import {
  AgentError,
  alarmName,
  MemoryStore,
  type ScheduledJob,
  ScheduledJobManager,
  taskDraft,
} from "@webbrain/agent";
import { browserCapabilities, type Mode } from "@webbrain/protocol";
import {
  lastToolResultText,
  type ScriptedLlm,
  type ScriptStep,
  startScriptedLlm,
  waitFor,
} from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { argsSummary, nudgeText, planForApproval, resultText } from "../src/background/panel-text.js";
import { RunManager } from "../src/background/run-manager.js";
import { TabSessions } from "../src/background/tab-sessions.js";
import { AddonJobRunner, type JobTabs } from "../src/scheduling/addon-job-runner.js";
import type { JournalEntry, RunSnapshot } from "../src/shared/run-events.js";
import { type ProviderConfig, parseSettings, type Settings } from "../src/shared/settings.js";
import { scriptedProviderConfig, until } from "./addon-harness.js";
import { MemoryArea } from "./memory-area.js";

const TAB: TabInfo = { id: "1", url: "https://example.test/", title: "Example", active: true };

function oneTabPort(): BrowserPort {
  const unsupported = async (): Promise<never> => {
    throw new Error("not used by these runs");
  };
  const page = async (): Promise<PageResult> => ({ success: true, text: "Example page text" });
  return {
    capabilities: browserCapabilities("page_layer", "navigation"),
    listTabs: async () => [TAB],
    activeTab: async () => TAB,
    getTab: async () => TAB,
    navigate: page,
    goBack: page,
    goForward: page,
    newTab: unsupported,
    pageAction: page,
    screenshot: unsupported,
    fetchUrl: unsupported,
    researchUrl: unsupported,
    listDownloads: async () => [],
    readDownload: unsupported,
  };
}

const llms: ScriptedLlm[] = [];
afterEach(async () => {
  for (const llm of llms.splice(0)) await llm.close();
});

function setup(
  settings: Settings,
  area = new MemoryArea(),
  personNeeded?: ConstructorParameters<typeof RunManager>[0]["personNeeded"],
) {
  const sessions = new TabSessions(area);
  const runs = new RunManager({
    sessions,
    loadSettings: async () => settings,
    port: oneTabPort(),
    store: new MemoryStore(),
    ...(personNeeded ? { personNeeded } : {}),
  });
  const events: JournalEntry[] = [];
  runs.onEvent((_tab, entry) => events.push(entry));
  const ended = () => events.some((e) => e.event.kind === "run_end");
  return { area, sessions, runs, events, ended };
}

/** A storage area whose writes take `delayMs`, as under a loaded Firefox. */
class SlowArea extends MemoryArea {
  constructor(private readonly delayMs: number) {
    super();
  }

  override async set(items: Record<string, unknown>): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    await super.set(items);
  }
}

function withProvider(p: ProviderConfig): Settings {
  return { ...parseSettings(undefined).settings, providers: [p], activeProviderId: p.id };
}

describe("RunManager", () => {
  it("refuses to start without a provider, with a sentence saying where to add one", async () => {
    const { runs } = setup(parseSettings(undefined).settings);
    await expect(runs.start("1", "hi", "ask")).rejects.toThrow(
      /No model provider is set up yet\. Open Settings/,
    );
  });

  it("runs one task per tab: a second start is refused while the first runs, Stop ends it once", async () => {
    const llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [{ fail: "hang", midStream: true }],
    });
    llms.push(llm);
    const { runs, events, ended, area } = setup(withProvider(scriptedProviderConfig(llm.baseUrl)));
    await runs.start("1", "first", "ask");
    await expect(runs.start("1", "second", "ask")).rejects.toThrow(/already running in this tab/);
    await waitFor(() => llm.requests.length === 1);
    expect(runs.stop("1")).toBe(true);
    await waitFor(ended);
    const kinds = events.map((e) => e.event.kind);
    expect(kinds[0]).toBe("run_start");
    expect(kinds.filter((k) => k === "run_end")).toHaveLength(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    // The terminal snapshot reaches runUi:<tabId> in storage.
    const stored = await until(async () => {
      const snapshot = (await area.get("runUi:1"))["runUi:1"] as RunSnapshot | undefined;
      return snapshot?.status === "stopped" ? snapshot : undefined;
    });
    expect(events[0]?.event).toMatchObject({ kind: "run_start", runId: stored.runId });
    expect(runs.isRunning("1")).toBe(false);
    expect(runs.stop("1")).toBe(false);
  });

  it("a provider the agent rejects ends the run with the agent's message, and the tab is free again", async () => {
    // OpenAI needs a key: the agent refuses the config when the run builds its client.
    const { runs, events, ended, sessions } = setup(
      withProvider(
        scriptedProviderConfig("https://api.openai.com/v1", { api: "openai-responses", apiKey: "" }),
      ),
    );
    await runs.start("1", "hi", "act");
    await waitFor(ended);
    const end = events.at(-1)?.event;
    expect(end).toMatchObject({ kind: "run_end", status: "error" });
    const transcript = (await sessions.hydrate("1")).transcript;
    expect(transcript.at(-1)).toMatchObject({
      kind: "error",
      text: expect.stringContaining("apiKey is empty"),
    });
    expect(runs.isRunning("1")).toBe(false);
  });

  it("Continue clicked the moment a stopped run shows its end starts the next run, not a busy error", async () => {
    const llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [{ fail: "hang", midStream: true }, { text: "Picked up where I left off." }],
    });
    llms.push(llm);
    // Storage as slow as a loaded Firefox's: the run's last journal write is still under way
    // when run_end reaches the panel, which is when a user (or the sidebar test) clicks Continue.
    const area = new SlowArea(150);
    const { runs, events, sessions } = setup(withProvider(scriptedProviderConfig(llm.baseUrl)), area);
    let continued: Promise<{ runId: string }> | undefined;
    runs.onEvent((_tab, entry) => {
      if (entry.event.kind === "run_end" && continued === undefined) continued = runs.continueRun("1");
    });
    await runs.start("1", "Tell me everything.", "ask");
    await waitFor(() => llm.requests.length === 1);
    runs.stop("1");
    await waitFor(() => continued !== undefined);
    await expect(continued).resolves.toMatchObject({ runId: expect.any(String) });
    await waitFor(() => events.filter((e) => e.event.kind === "run_end").length === 2, { timeoutMs: 10_000 });
    const transcript = (await sessions.hydrate("1")).transcript;
    expect(transcript.at(-1)).toMatchObject({ kind: "assistant", text: "Picked up where I left off." });
  });

  it("pause_for_user shows a take-over card; Continue with a note resumes the run with the note", async () => {
    let resumedWith = "";
    const llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        {
          toolCalls: [
            { name: "pause_for_user", arguments: { message: "Log in as Ada, then press Continue." } },
          ],
        },
        (request) => {
          resumedWith = lastToolResultText(request);
          return { toolCalls: [{ name: "done", arguments: { summary: "Logged in and checked." } }] };
        },
      ],
    });
    llms.push(llm);
    const { runs, events, ended } = setup(withProvider(scriptedProviderConfig(llm.baseUrl)));
    await runs.start("1", "Check my account", "act", { interactive: true });
    const card = await until(async () => {
      const event = events.find((e) => e.event.kind === "prompt")?.event;
      return event?.kind === "prompt" ? event.prompt : undefined;
    });
    expect(card).toMatchObject({
      kind: "takeover",
      body: "Log in as Ada, then press Continue.",
      note: { label: "Note for the agent (optional)" },
      choices: [{ id: "continue", label: "Continue" }],
    });
    // The run holds: no model request until the person hands back.
    expect(llm.requests).toHaveLength(1);
    expect(runs.liveSnapshot("1")?.prompt?.promptId).toBe(card.promptId);
    expect(runs.answer("1", card.promptId, "continue", "  Logged in; the 2FA code was 123.  ")).toBe(true);
    await waitFor(ended);
    expect(resumedWith).toContain('They said: "Logged in; the 2FA code was 123."');
    expect(events.at(-1)?.event).toMatchObject({ kind: "run_end", status: "done" });
  });

  it("Stop during a take-over ends the run as stopped, not as a hand-back", async () => {
    const llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [{ toolCalls: [{ name: "pause_for_user", arguments: { message: "Solve the captcha." } }] }],
    });
    llms.push(llm);
    const { runs, events, ended } = setup(withProvider(scriptedProviderConfig(llm.baseUrl)));
    await runs.start("1", "Sign in", "act", { interactive: true });
    await until(async () => events.some((e) => e.event.kind === "prompt"));
    expect(runs.stop("1")).toBe(true);
    await waitFor(ended);
    expect(llm.requests).toHaveLength(1);
    expect(events.at(-1)?.event).toMatchObject({ kind: "run_end", status: "stopped" });
  });

  it("commits streamed text as one assistant item, never twice", async () => {
    const llm = await startScriptedLlm({ dialect: "openai-chat", script: [{ text: "The answer is 42." }] });
    llms.push(llm);
    const { runs, ended, sessions } = setup(withProvider(scriptedProviderConfig(llm.baseUrl)));
    await runs.start("1", "what is it?", "ask");
    await waitFor(ended);
    const transcript = (await sessions.hydrate("1")).transcript;
    expect(transcript.map((i) => i.kind)).toEqual(["user", "assistant"]);
    expect(transcript[1]).toMatchObject({ text: "The answer is 42." });
  });
});

describe("what the panel shows", () => {
  it("summarizes tool arguments in one line", () => {
    expect(argsSummary('{"ref_id":3,"value":"Ada"}')).toBe('ref_id 3 · value "Ada"');
    expect(argsSummary("not json")).toBe("not json");
  });

  it("words a plan for approval, not as already approved", () => {
    const text = planForApproval({
      goal: "Buy milk",
      steps: [{ action: "open shop", target: "shop.test" }],
      risks: ["pays"],
    });
    expect(text).toBe("Goal: Buy milk\n1. open shop (shop.test)\nRisks: pays");
  });

  it("words a pause and a provider failure from the agent's data, not from its English text", () => {
    expect(resultText({ status: "step_limit", text: "(agent wording)", steps: 7 })).toBe(
      "Paused after 7 steps without finishing. Press Continue to keep going.",
    );
    const error = new AgentError("provider_auth", "(agent wording)", {
      provider: {
        provider: "Ollama",
        endpoint: "http://127.0.0.1:11434/v1",
        model: "qwen3",
        cause: "403 Forbidden",
        status: "403",
        ollamaOrigin: true,
      },
    });
    const failure = resultText({ status: "error", text: error.message, steps: 0, error });
    expect(failure).toMatch(
      /^Ollama \(http:\/\/127\.0\.0\.1:11434\/v1, model qwen3\) refused the request with HTTP 403: 403 Forbidden\./,
    );
    expect(failure).toContain("OLLAMA_ORIGINS=moz-extension://*");
    expect(resultText({ status: "answered", text: "(agent wording)", steps: 0, allowApi: false })).toBe(
      "API mutations (POST/PUT/PATCH/DELETE via fetch_url) are not allowed in this conversation.",
    );
    expect(resultText({ status: "answered", text: "The page says 42.", steps: 1 })).toBe("The page says 42.");
    const loop = new AgentError("loop_stopped", "(agent wording)", {
      loop: { detector: "navigation", subject: "https://shop.test/", count: 5 },
    });
    expect(resultText({ status: "stopped", text: loop.message, steps: 6, error: loop })).toBe(
      "Stopped: the agent navigated to https://shop.test/ 5 times without the page changing. It is stuck; rephrase the task or do this step yourself.",
    );
    expect(
      nudgeText({
        type: "nudge",
        detector: "repeat",
        message: "(model note)",
        subject: "click_ax",
        count: 3,
      }),
    ).toBe(
      "Loop check: the agent called click_ax with the same arguments 3 times on a page that did not change; it was told to try something else.",
    );
    // An error without data keeps the agent's own words.
    const plain = new AgentError("loop_stopped", "Stopped: the same click four times.");
    expect(resultText({ status: "stopped", text: plain.message, steps: 3, error: plain })).toBe(
      plain.message,
    );
  });
});

describe("scheduled runs through the RunManager (AddonJobRunner)", () => {
  const tabs: JobTabs = {
    get: async (tabId) => ({
      id: tabId,
      index: 0,
      highlighted: false,
      active: false,
      pinned: false,
      incognito: false,
    }),
    query: async () => [],
    create: async () => {
      throw new Error("a current_tab job opens no tab");
    },
  };

  /** One scheduled job in tab 1, fired by hand, whose model answers with `reply`. */
  async function runScheduled(
    mode: Exclude<Mode, "dev">,
    reply: ScriptStep[],
    options: { personWaitMinutes?: number; personNeeded?: Parameters<typeof setup>[2] } = {},
  ): Promise<ScheduledJob | undefined> {
    const llm = await startScriptedLlm({ dialect: "openai-chat", script: reply });
    llms.push(llm);
    const settings = { ...withProvider(scriptedProviderConfig(llm.baseUrl)), maxSteps: 1 };
    if (options.personWaitMinutes !== undefined) settings.personWaitMinutes = options.personWaitMinutes;
    const { runs } = setup(settings, undefined, options.personNeeded);
    let now = Date.parse("2026-12-01T08:00:00Z");
    const manager = new ScheduledJobManager({
      store: new MemoryStore(),
      alarms: { set: async () => {}, clear: async () => {} },
      runner: new AddonJobRunner(runs, tabs),
      clock: { now: () => now },
    });
    const job = await manager.create(
      taskDraft({ prompt: "Check the page", mode, schedule: { after_seconds: 60 } }, now, manager.limits),
      "1",
    );
    now += 60_000;
    await manager.handleAlarm(alarmName(job.id));
    await manager.settled(job.id);
    return manager.get(job.id);
  }

  it("a run that ends with a question leaves the job needing the user's input, not completed", async () => {
    const job = await runScheduled("act", [
      { toolCalls: [{ name: "clarify", arguments: { question: "Which account should I check?" } }] },
    ]);
    expect(job).toMatchObject({
      state: "needs_user_input",
      lastResult: { status: "needs_user_input", text: "Which account should I check?" },
    });
  });

  it("a run that hands over to a person notifies them, waits its bounded time, then says it needed a person", async () => {
    const notices: string[] = [];
    const job = await runScheduled(
      "act",
      [{ toolCalls: [{ name: "pause_for_user", arguments: { message: "Log in to the bank." } }] }],
      {
        // 60 ms: Settings stores whole minutes; a fraction is what lets a test wait briefly.
        personWaitMinutes: 0.001,
        personNeeded: {
          notify: (tabId, reason) => notices.push(`notify ${tabId}: ${reason}`),
          clear: (tabId) => notices.push(`clear ${tabId}`),
        },
      },
    );
    expect(notices).toEqual(["notify 1: Log in to the bank.", "clear 1"]);
    expect(job).toMatchObject({ state: "needs_user_input", lastResult: { status: "needs_user_input" } });
    expect(job?.lastResult?.text).toBe(
      "This scheduled run needed a person and nobody came in time: Log in to the bank. Do it and press Continue to resume.",
    );
  });

  it("a run stopped by the step limit leaves the job paused; an answer completes it", async () => {
    const paused = await runScheduled("ask", [{ toolCalls: [{ name: "read_page", arguments: {} }] }]);
    expect(paused).toMatchObject({ state: "paused", lastResult: { status: "paused" } });
    expect(paused?.lastResult?.text).toContain("Paused after 1 steps");
    const answered = await runScheduled("ask", [{ text: "Nothing new on the page." }]);
    expect(answered).toMatchObject({ state: "completed", lastResult: { text: "Nothing new on the page." } });
  });
});
