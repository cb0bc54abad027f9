/**
 * schedule_task / schedule_resume through the agent loop with a scripted model: offered only
 * when the agent has a scheduler, a job lands in the store with its alarm, a resume ends the
 * run, bad input schedules nothing and tells the model what to send, and Ask cannot schedule
 * an Act task.
 */
import { toolNames } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore, ScheduledJobManager } from "../../src/index.js";
import { type Harness, harness } from "../harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function scheduler() {
  const alarms = new Map<string, number>();
  const manager = new ScheduledJobManager({
    store: new MemoryStore(),
    alarms: {
      set: async (name, at) => void alarms.set(name, at),
      clear: async (name) => void alarms.delete(name),
    },
    runner: { isBusy: () => false, run: async () => ({ status: "completed", text: "" }) },
  });
  return { manager, alarms };
}

describe("schedule tools", () => {
  it("are not offered without a scheduler", async () => {
    h = await harness({ script: [{ text: "ok" }] });
    await h.agent.processMessage("1", "hi", { mode: "act" });
    expect(toolNames(h.llm.requests[0]!)).not.toContain("schedule_task");
  });

  it("schedule_task creates a recurring URL job for this tab; Ask caps its mode", async () => {
    const { manager, alarms } = scheduler();
    h = await harness({
      script: [
        {
          toolCalls: [
            {
              name: "schedule_task",
              arguments: {
                title: "Prices",
                prompt: "Read the price list",
                schedule: { type: "recurring", interval_minutes: 60 },
                target: { type: "url", url: "https://shop.example/prices" },
                mode: "act",
              },
            },
          ],
        },
        { text: "Scheduled." },
      ],
      agent: { scheduler: manager },
    });
    await h.agent.processMessage("5", "check prices every hour", { mode: "ask" });
    expect(toolNames(h.llm.requests[0]!)).toContain("schedule_task");
    expect(toolNames(h.llm.requests[0]!)).not.toContain("schedule_resume");
    const [job] = await manager.list({ ownerTabId: "5" });
    expect(job).toMatchObject({
      kind: "task",
      mode: "ask",
      target: { type: "url", url: "https://shop.example/prices" },
      schedule: { type: "recurring", intervalMinutes: 60 },
      state: "pending",
    });
    expect(alarms.get(`wb_scheduled_job:${job!.id}`)).toBe(job!.nextRunAt);
  });

  it("schedule_resume ends the run and bad input schedules nothing", async () => {
    const { manager } = scheduler();
    h = await harness({
      script: [
        {
          toolCalls: [
            {
              name: "schedule_task",
              arguments: { prompt: "x", schedule: { type: "once", after_seconds: 5 } },
            },
          ],
        },
        {
          toolCalls: [
            { name: "schedule_resume", arguments: { reason: "waiting for CI", after_seconds: 120 } },
          ],
        },
        { text: "never reached" },
      ],
      agent: { scheduler: manager },
    });
    const result = await h.agent.processMessage("2", "deploy and wait for CI", { mode: "act" });
    expect(result.status).toBe("done");
    expect(result.text).toMatch(/^Paused\. This task resumes at/);
    expect(h.llm.requests).toHaveLength(2);
    const jobs = await manager.list({});
    expect(jobs.map((job) => job.kind)).toEqual(["resume"]);
    expect(jobs[0]).toMatchObject({ ownerTabId: "2", mode: "act", title: "waiting for CI" });
  });
});
