/**
 * ScheduledJobManager with a fake clock and fake alarms (the seams), a MemoryStore, and a
 * runner whose runs the test ends by hand: lifecycle, recurring runs, deferral on a busy tab,
 * the deferral limit, cancel, and restart (restore) after a crash or a closed browser.
 */
import { describe, expect, it } from "vitest";
import {
  type JobRunner,
  type JobRunOutcome,
  MemoryStore,
  resumeDraft,
  SCHEDULED_JOBS_KEY,
  type ScheduledJob,
  ScheduledJobManager,
  ScheduleInputError,
  type SchedulerAlarms,
  taskDraft,
} from "../../src/index.js";
import { DEFAULT_SCHEDULER_LIMITS } from "../../src/scheduler/job.js";

const MINUTE = 60_000;
const T0 = Date.parse("2026-12-01T08:00:00Z");

class FakeClock {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
}

class FakeAlarms implements SchedulerAlarms {
  readonly due = new Map<string, number>();
  async set(name: string, at: number): Promise<void> {
    this.due.set(name, at);
  }
  async clear(name: string): Promise<void> {
    this.due.delete(name);
  }
  /** Names whose time has come, removed as browser.alarms removes a fired one-shot alarm. */
  take(now: number): string[] {
    const fired = [...this.due].filter(([, at]) => at <= now).map(([name]) => name);
    for (const name of fired) this.due.delete(name);
    return fired;
  }
}

class ManualRunner implements JobRunner {
  busy = new Set<string>();
  started: ScheduledJob[] = [];
  private finishers: ((outcome: JobRunOutcome) => void)[] = [];
  isBusy(job: ScheduledJob): boolean {
    return this.busy.has(job.ownerTabId);
  }
  run(job: ScheduledJob): Promise<JobRunOutcome> {
    this.started.push(job);
    return new Promise((resolve) => this.finishers.push(resolve));
  }
  finish(outcome: JobRunOutcome): void {
    const next = this.finishers.shift();
    if (!next) throw new Error("no run to finish");
    next(outcome);
  }
}

function setup(store = new MemoryStore(), clock = new FakeClock(T0)) {
  const alarms = new FakeAlarms();
  const runner = new ManualRunner();
  let counter = 0;
  const manager = new ScheduledJobManager({ store, alarms, runner, clock, newJobId: () => `j${++counter}` });
  async function fireDue(): Promise<void> {
    for (const name of alarms.take(clock.now())) await manager.handleAlarm(name);
  }
  return { store, clock, alarms, runner, manager, fireDue };
}

describe("ScheduledJobManager", () => {
  it("runs a once task when its alarm fires, records the result and ends completed", async () => {
    const { manager, clock, alarms, runner, fireDue, store } = setup();
    const job = await manager.create(
      taskDraft(
        { title: "Check", prompt: "Check the news", schedule: { type: "once", after_seconds: 120 } },
        T0,
        manager.limits,
      ),
      "7",
    );
    expect(job.state).toBe("pending");
    expect(alarms.due.get(`wb_scheduled_job:${job.id}`)).toBe(T0 + 2 * MINUTE);
    clock.time = T0 + MINUTE;
    await fireDue();
    expect(runner.started).toHaveLength(0);
    clock.time = T0 + 2 * MINUTE;
    await fireDue();
    expect(runner.started.map((j) => j.prompt)).toEqual(["Check the news"]);
    expect((await manager.get(job.id))?.state).toBe("running");
    runner.finish({ status: "completed", text: "Nothing new.", tabId: "9" });
    await manager.settled(job.id);
    const after = await manager.get(job.id);
    expect(after).toMatchObject({ state: "completed", runCount: 1, lastTabId: "9" });
    expect(after?.lastResult).toMatchObject({ status: "completed", text: "Nothing new." });
    expect(alarms.due.size).toBe(0);
    // The storage key is the spec's.
    expect(Array.isArray(await store.get(SCHEDULED_JOBS_KEY))).toBe(true);
  });

  it("runs a recurring task every interval and keeps it pending between runs", async () => {
    const { manager, clock, runner, fireDue } = setup();
    const job = await manager.create(
      taskDraft({ prompt: "Tick", schedule: { type: "recurring", interval_minutes: 5 } }, T0, manager.limits),
      "1",
    );
    expect(job.nextRunAt).toBe(T0 + 5 * MINUTE);
    for (const round of [1, 2]) {
      clock.time = T0 + round * 5 * MINUTE;
      await fireDue();
      runner.finish({ status: "completed", text: `run ${round}` });
      await manager.settled(job.id);
    }
    const after = await manager.get(job.id);
    expect(after).toMatchObject({ state: "pending", runCount: 2, nextRunAt: T0 + 15 * MINUTE });
    expect(after?.lastResult?.text).toBe("run 2");
  });

  it("a run that asked a question or stopped unfinished leaves the job waiting on the user", async () => {
    const { manager, clock, alarms, runner, fireDue } = setup();
    const asking = await manager.create(
      taskDraft(
        { prompt: "Ask me", schedule: { type: "recurring", interval_minutes: 5 } },
        T0,
        manager.limits,
      ),
      "1",
    );
    const pausing = await manager.create(
      taskDraft({ prompt: "Long one", schedule: { after_seconds: 300 } }, T0, manager.limits),
      "2",
    );
    clock.time = T0 + 5 * MINUTE;
    await fireDue();
    runner.finish({ status: "needs_user_input", text: "Which account?" });
    runner.finish({ status: "paused", text: "Paused after 20 steps." });
    for (const id of [asking.id, pausing.id]) await manager.settled(id);
    // A recurring job waiting on an answer is not fired again behind the user's back.
    expect(await manager.get(asking.id)).toMatchObject({
      state: "needs_user_input",
      lastResult: { status: "needs_user_input", text: "Which account?" },
    });
    expect(await manager.get(pausing.id)).toMatchObject({
      state: "paused",
      lastResult: { status: "paused" },
    });
    expect(alarms.due.size).toBe(0);
    // Both still count as live: listed, and cancellable.
    expect((await manager.list()).map((job) => job.id).sort()).toEqual([asking.id, pausing.id]);
    await manager.cancel(pausing.id);
    expect((await manager.get(pausing.id))?.state).toBe("cancelled");
  });

  it("a recurring run that overran its interval skips the missed slots", async () => {
    const { manager, clock, runner, fireDue } = setup();
    const job = await manager.create(
      taskDraft({ prompt: "Slow", schedule: { type: "recurring", interval_minutes: 1 } }, T0, manager.limits),
      "1",
    );
    clock.time = T0 + MINUTE;
    await fireDue();
    clock.time = T0 + 3.5 * MINUTE;
    runner.finish({ status: "completed", text: "slow" });
    await manager.settled(job.id);
    expect((await manager.get(job.id))?.nextRunAt).toBe(T0 + 4 * MINUTE);
  });

  it("defers a job while its tab is busy and runs it once the tab is free", async () => {
    const { manager, clock, runner, alarms, fireDue } = setup();
    runner.busy.add("3");
    const job = await manager.create(
      taskDraft({ prompt: "Later", schedule: { after_seconds: 0 } }, T0, manager.limits),
      "3",
    );
    await fireDue();
    const queued = await manager.get(job.id);
    expect(queued).toMatchObject({ state: "queued", deferrals: 1 });
    expect(alarms.due.get(`wb_scheduled_job:${job.id}`)).toBe(T0 + DEFAULT_SCHEDULER_LIMITS.queueRetryMs);
    runner.busy.clear();
    clock.time += DEFAULT_SCHEDULER_LIMITS.queueRetryMs;
    await fireDue();
    expect(runner.started).toHaveLength(1);
    runner.finish({ status: "completed", text: "ok" });
    await manager.settled(job.id);
    expect(await manager.get(job.id)).toMatchObject({ state: "completed", deferrals: 0 });
  });

  it("fails a job whose tab stays busy past the deferral limit, saying why", async () => {
    const store = new MemoryStore();
    const clock = new FakeClock(T0);
    const alarms = new FakeAlarms();
    const runner = new ManualRunner();
    runner.busy.add("3");
    const manager = new ScheduledJobManager({ store, alarms, runner, clock, limits: { maxDeferrals: 2 } });
    const job = await manager.create(
      taskDraft({ prompt: "x", schedule: { after_seconds: 0 } }, T0, manager.limits),
      "3",
    );
    for (let i = 0; i < 3; i++) {
      for (const name of alarms.take(clock.time)) await manager.handleAlarm(name);
      clock.time += manager.limits.queueRetryMs;
    }
    const failed = await manager.get(job.id);
    expect(failed?.state).toBe("failed");
    expect(failed?.lastResult?.text).toMatch(/busy through 2 retries/);
    expect(runner.started).toHaveLength(0);
  });

  it("cancel clears the alarm and a cancelled job never runs", async () => {
    const { manager, clock, runner, alarms, fireDue } = setup();
    const job = await manager.create(
      taskDraft({ prompt: "x", schedule: { after_seconds: 60 } }, T0, manager.limits),
      "1",
    );
    expect(await manager.cancel(job.id)).toBe(true);
    expect(alarms.due.size).toBe(0);
    // Even a stale alarm (fired before the clear reached the browser) does nothing.
    await manager.handleAlarm(`wb_scheduled_job:${job.id}`);
    clock.time += 2 * MINUTE;
    await fireDue();
    expect(runner.started).toHaveLength(0);
    expect(await manager.cancel(job.id)).toBe(false);
    expect(await manager.list({ ownerTabId: "1", includeFinished: false })).toEqual([]);
  });

  it("cancelling a recurring job mid-run keeps the result and plans nothing more", async () => {
    const { manager, clock, runner, alarms, fireDue } = setup();
    const job = await manager.create(
      taskDraft({ prompt: "x", schedule: { type: "recurring", interval_minutes: 1 } }, T0, manager.limits),
      "1",
    );
    clock.time += MINUTE;
    await fireDue();
    await manager.cancel(job.id);
    runner.finish({ status: "completed", text: "done anyway" });
    await manager.settled(job.id);
    expect(await manager.get(job.id)).toMatchObject({ state: "cancelled", runCount: 1 });
    expect(alarms.due.size).toBe(0);
  });

  it("restore re-queues a job the add-on stopped under and re-arms due and future jobs", async () => {
    const first = setup();
    const interrupted = await first.manager.create(
      taskDraft({ prompt: "a", schedule: { after_seconds: 0 } }, T0, first.manager.limits),
      "1",
    );
    const future = await first.manager.create(
      taskDraft({ prompt: "b", schedule: { after_seconds: 600 } }, T0, first.manager.limits),
      "1",
    );
    const missed = await first.manager.create(
      taskDraft(
        { prompt: "c", schedule: { type: "recurring", interval_minutes: 10 } },
        T0,
        first.manager.limits,
      ),
      "1",
    );
    await first.fireDue(); // "a" starts and the add-on "dies" before it ends.
    expect((await first.manager.get(interrupted.id))?.state).toBe("running");

    // The browser comes back an hour later: a new manager over the same store.
    const later = new FakeClock(T0 + 60 * MINUTE);
    const second = setup(first.store, later);
    await second.manager.restore();
    expect((await second.manager.get(interrupted.id))?.state).toBe("queued");
    expect(second.alarms.due.get(`wb_scheduled_job:${interrupted.id}`)).toBe(later.time);
    // Overdue jobs fire now, once; the recurring one then continues from now.
    expect(second.alarms.due.get(`wb_scheduled_job:${future.id}`)).toBe(later.time);
    expect(second.alarms.due.get(`wb_scheduled_job:${missed.id}`)).toBe(later.time);
    await second.fireDue();
    expect(second.runner.started.map((j) => j.prompt).sort()).toEqual(["a", "b", "c"]);
    for (let i = 0; i < 3; i++) second.runner.finish({ status: "completed", text: "ok" });
    for (const id of [interrupted.id, future.id, missed.id]) await second.manager.settled(id);
    const recurring = await second.manager.get(missed.id);
    expect(recurring?.state).toBe("pending");
    expect(recurring?.nextRunAt).toBeGreaterThan(later.time);
    expect(recurring?.nextRunAt).toBeLessThanOrEqual(later.time + 10 * MINUTE);
  });

  it("a run that throws ends the job failed with the error's message", async () => {
    const store = new MemoryStore();
    const alarms = new FakeAlarms();
    const manager = new ScheduledJobManager({
      store,
      alarms,
      clock: new FakeClock(T0),
      runner: { isBusy: () => false, run: () => Promise.reject(new Error("The target tab is gone.")) },
    });
    const job = await manager.create(
      taskDraft({ prompt: "x", schedule: { after_seconds: 0 } }, T0, manager.limits),
      "1",
    );
    for (const name of alarms.take(T0)) await manager.handleAlarm(name);
    await manager.settled(job.id);
    expect(await manager.get(job.id)).toMatchObject({
      state: "failed",
      lastResult: { status: "failed", text: "The target tab is gone." },
    });
  });

  it("ignores alarms that are not its own", async () => {
    const { manager } = setup();
    expect(await manager.handleAlarm("someone-else")).toBe(false);
  });
});

describe("schedule inputs", () => {
  const limits = DEFAULT_SCHEDULER_LIMITS;

  it("refuses too-soon, too-far and malformed schedules with messages that say what to send", () => {
    expect(() => taskDraft({ prompt: "x", schedule: { after_seconds: 10 } }, T0, limits)).toThrow(
      /at least 60 seconds ahead \(or after_seconds: 0/,
    );
    expect(() => taskDraft({ prompt: "x", schedule: { after_seconds: 30 * 86_400 } }, T0, limits)).toThrow(
      /within 7 days/,
    );
    expect(() => taskDraft({ prompt: "x", schedule: { type: "recurring" } }, T0, limits)).toThrow(
      /needs interval_minutes/,
    );
    expect(() => taskDraft({ prompt: "x", schedule: { type: "weekly" } }, T0, limits)).toThrow(
      ScheduleInputError,
    );
    expect(() => taskDraft({ prompt: "", schedule: { after_seconds: 0 } }, T0, limits)).toThrow(
      /prompt is required/,
    );
    expect(() =>
      taskDraft(
        { prompt: "x", schedule: { after_seconds: 0 }, target: { type: "url", url: "ftp://x" } },
        T0,
        limits,
      ),
    ).toThrow(/http\(s\)/);
    expect(() => resumeDraft({ reason: "CI", after_seconds: 5 }, T0, limits, "act")).toThrow(/30 seconds/);
  });

  it("reads run_at, URL targets and resume instructions", () => {
    const task = taskDraft(
      {
        title: "Morning",
        prompt: "Read the headlines",
        schedule: { type: "once", run_at: "2026-12-01T09:00:00Z" },
        target: { type: "url", url: "https://example.org/news" },
        mode: "ask",
      },
      T0,
      limits,
    );
    expect(task).toMatchObject({
      schedule: { type: "once", runAt: T0 + 60 * MINUTE },
      target: { type: "url", url: "https://example.org/news" },
      mode: "ask",
    });
    const resume = resumeDraft({ reason: "waiting for CI", after_seconds: 300 }, T0, limits, "dev");
    expect(resume).toMatchObject({ kind: "resume", mode: "dev", schedule: { runAt: T0 + 5 * MINUTE } });
    expect(resume.prompt).toMatch(/waiting for CI/);
  });
});
