import { describe, expect, it } from "vitest";
import { SettingsStore } from "../src/background/settings-store.js";
import { TabSessions } from "../src/background/tab-sessions.js";
import { LOCAL_PREFIX, WebExtStore } from "../src/background/webext-store.js";
import type { RunSnapshot } from "../src/shared/run-events.js";
import {
  DEFAULT_MAX_STEPS,
  PROVIDER_PRESETS,
  parseSettings,
  providerFromPreset,
} from "../src/shared/settings.js";
import { MAX_TRANSCRIPT_ITEMS, type TranscriptItem } from "../src/shared/transcript.js";
import { MemoryArea } from "./memory-area.js";

const llamacpp = PROVIDER_PRESETS[0]!;

function runningSnapshot(tabId: string): RunSnapshot {
  return {
    tabId,
    runId: "r1",
    mode: "act",
    status: "running",
    seq: 5,
    startedAt: 1,
    events: [],
    streamText: "half an ans",
    streamTextDropped: 0,
    openTools: [{ callId: "c", name: "click_ax", args: "{}" }],
  };
}

describe("TabSessions (tabChat / runUi in storage.session)", () => {
  it("hydrates a tab's transcript from storage before anything is added", async () => {
    const area = new MemoryArea();
    const first = new TabSessions(area);
    await first.appendTranscript("4", [{ kind: "user", text: "hi", mode: "ask", at: 1 }]);
    // A new background page (or a restart of it) sees the same transcript.
    const second = new TabSessions(area);
    await second.appendTranscript("4", [{ kind: "assistant", text: "hello", at: 2 }]);
    const session = await new TabSessions(area).hydrate("4");
    expect(session.transcript.map((i) => i.kind)).toEqual(["user", "assistant"]);
    expect([...area.values.keys()]).toEqual(["tabChat:4"]);
  });

  it("loads a tab once even when asked concurrently", async () => {
    const area = new MemoryArea();
    const sessions = new TabSessions(area);
    const [a, b] = await Promise.all([sessions.hydrate("1"), sessions.hydrate("1")]);
    expect(a).toBe(b);
  });

  it("keeps only the newest transcript items", async () => {
    const sessions = new TabSessions(new MemoryArea());
    const items: TranscriptItem[] = Array.from({ length: MAX_TRANSCRIPT_ITEMS + 5 }, (_, i) => ({
      kind: "notice",
      text: `n${i}`,
      at: i,
    }));
    await sessions.appendTranscript("2", items);
    const session = await sessions.hydrate("2");
    expect(session.transcript).toHaveLength(MAX_TRANSCRIPT_ITEMS);
    expect(session.transcript[0]).toMatchObject({ text: "n5" });
  });

  it("marks a run that was running when the background page died as interrupted, with Continue", async () => {
    const area = new MemoryArea();
    await area.set({ "runUi:9": runningSnapshot("9") });
    const session = await new TabSessions(area).hydrate("9");
    expect(session.run?.status).toBe("error");
    expect(session.run?.openTools).toEqual([]);
    expect(session.transcript.at(-1)).toMatchObject({
      kind: "error",
      text: expect.stringContaining("Continue"),
    });
    const stored = (await area.get("runUi:9"))["runUi:9"] as RunSnapshot;
    expect(stored.status).toBe("error");
  });

  it("resets a damaged transcript with a notice instead of failing", async () => {
    const area = new MemoryArea();
    await area.set({ "tabChat:3": "<li>html from an old version</li>" });
    const session = await new TabSessions(area).hydrate("3");
    expect(session.transcript).toHaveLength(1);
    expect(session.transcript[0]).toMatchObject({ kind: "notice" });
  });

  it("reads /allow-api from the agent's conversation and forgets every key of a tab", async () => {
    const area = new MemoryArea();
    await area.set({ "agentConv:5": { version: 1, messages: [], allowApi: true } });
    const sessions = new TabSessions(area);
    await sessions.appendTranscript("5", [{ kind: "notice", text: "x", at: 1 }]);
    await sessions.writeRun("5", { ...runningSnapshot("5"), status: "done" });
    expect(await sessions.allowApi("5")).toBe(true);
    await sessions.forget("5");
    expect(area.values.size).toBe(0);
    expect(await sessions.allowApi("5")).toBe(false);
  });
});

describe("WebExtStore (the agent's Store)", () => {
  it("puts conversations in the session area under agentConv:<tabId> and the rest in local, prefixed", async () => {
    const local = new MemoryArea();
    const session = new MemoryArea();
    const store = new WebExtStore(local, session);
    await store.set("agentConv:7", { messages: [] });
    await store.set("permissions:always", { "interact https://a.test": true });
    expect([...session.values.keys()]).toEqual(["agentConv:7"]);
    expect([...local.values.keys()]).toEqual([`${LOCAL_PREFIX}permissions:always`]);
    expect(await store.get("permissions:always")).toEqual({ "interact https://a.test": true });
    expect(await store.keys("agentConv:")).toEqual(["agentConv:7"]);
    expect((await store.keys()).sort()).toEqual(["agentConv:7", "permissions:always"]);
    await store.remove("agentConv:7");
    expect(await store.get("agentConv:7")).toBeUndefined();
  });
});

describe("settings", () => {
  it("a fresh install gets defaults, and stored junk is repaired with a note", () => {
    expect(parseSettings(undefined).settings).toMatchObject({ providers: [], maxSteps: DEFAULT_MAX_STEPS });
    const { settings, problems } = parseSettings({ providers: [42], maxSteps: -3, verbose: "loud" });
    expect(settings.providers).toEqual([]);
    expect(settings.maxSteps).toBe(DEFAULT_MAX_STEPS);
    expect(settings.verbose).toBe("normal");
    expect(problems[0]).toMatch(/provider #1/);
  });

  it("SettingsStore refuses an invalid provider, naming what to fix, and stores nothing", async () => {
    const area = new MemoryArea();
    const store = new SettingsStore(area);
    expect(await store.exists()).toBe(false);
    const bad = { ...providerFromPreset(llamacpp, "p1"), baseUrl: "localhost:8080" };
    const settings = { ...parseSettings(undefined).settings, providers: [bad] };
    await expect(store.save(settings)).rejects.toThrow(/must start with http/);
    expect(area.writes).toBe(0);
    const good = providerFromPreset(llamacpp, "p1");
    const saved = await store.save({ ...settings, providers: [good] });
    expect(saved.activeProviderId).toBe("p1");
    expect(await store.load()).toEqual(saved);
  });

  it("refuses two providers with one id", async () => {
    const store = new SettingsStore(new MemoryArea());
    const p = providerFromPreset(llamacpp, "same");
    await expect(store.save({ ...parseSettings(undefined).settings, providers: [p, p] })).rejects.toThrow(
      /share one id/,
    );
  });
});
