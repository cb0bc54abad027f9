/**
 * Workflow jobs, browser-free: the job file's kind "workflow" (version 2, the workflow embedded)
 * round-trips from a scheduled job and version 1 task files still parse; a run's report says
 * replayed / repaired / failed with the step, asks the agent only when the job allows and the
 * replay stopped at a step, and a repair's next version goes to the job. (In Firefox:
 * runner/test/workflow-job.test.ts and extension/test/scheduled-workflows.test.ts.)
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_SCHEDULER_LIMITS,
  type HandoverRun,
  JobFileError,
  jobFileFromJob,
  MemoryStore,
  parseJobFile,
  parseWorkflow,
  type ReplayResult,
  runWorkflowJob,
  type ScheduledJob,
  ScheduledJobManager,
  serializeWorkflow,
  type TraceRecord,
  type Workflow,
  workflowDraft,
} from "../../src/index.js";

const target = (role: string, name: string) => ({ role, name, within: [{ role: "form", name: "Order" }] });

const WORKFLOW: Workflow = parseWorkflow(
  JSON.stringify({
    webbrainWorkflow: 3,
    name: "Order for a customer",
    createdAt: "2026-12-01T10:00:00.000Z",
    fromRun: "run-1",
    startUrl: "https://shop.example/order",
    params: [{ name: "customer", default: "Ada Lovelace", field: "Name" }],
    steps: [
      { tool: "type_ax", args: { value: "{{customer}}" }, target: target("textbox", "Name"), url: "u" },
      { tool: "click_ax", args: {}, target: target("button", "Save"), url: "u", expect: { changed: true } },
    ],
  }),
);

const NOW = Date.parse("2026-12-04T08:00:00.000Z");

const draft = () =>
  workflowDraft(
    { schedule: { type: "once", after_seconds: 120 } },
    { ...WORKFLOW, text: serializeWorkflow(WORKFLOW), params: { customer: "Grace" }, handover: true },
    NOW,
    DEFAULT_SCHEDULER_LIMITS,
  );

function scheduledJob(): ScheduledJob {
  return {
    id: "job-1",
    ...draft(),
    ownerTabId: "1",
    state: "pending",
    nextRunAt: NOW + 120_000,
    createdAt: NOW,
    runCount: 0,
    deferrals: 0,
  };
}

describe("workflow job files", () => {
  it("exports a workflow job as version 2 with the workflow embedded, and reads it back", () => {
    const job = scheduledJob();
    expect(job).toMatchObject({
      kind: "workflow",
      title: "Order for a customer",
      mode: "act",
      target: { type: "url", url: "https://shop.example/order" },
    });
    const file = jobFileFromJob(job, undefined, NOW);
    expect(file).toMatchObject({
      version: 2,
      job: {
        kind: "workflow",
        mode: "act",
        url: "https://shop.example/order",
        params: { customer: "Grace" },
        handover: true,
        workflow: { name: "Order for a customer", steps: WORKFLOW.steps },
      },
    });
    expect(parseJobFile(JSON.stringify(file))).toEqual(file);
  });

  it("still writes a task job as version 1 and reads version 1 files", () => {
    const task: ScheduledJob = { ...scheduledJob(), kind: "task", prompt: "check", mode: "ask" };
    delete task.workflow;
    const file = jobFileFromJob(task, undefined, NOW);
    expect(file.version).toBe(1);
    expect(file.job).toEqual({
      kind: "task",
      title: "Order for a customer",
      prompt: "check",
      mode: "ask",
      url: "https://shop.example/order",
      schedule: { type: "once", runAt: new Date(NOW + 120_000).toISOString() },
    });
    expect(parseJobFile(JSON.stringify(file)).job).toEqual(file.job);
  });

  it("refuses a workflow job that is damaged, in Dev mode, or in a version 1 file, saying what is wrong", () => {
    const file = jobFileFromJob(scheduledJob(), undefined, NOW);
    const withJob = (job: Record<string, unknown>, version = 2) =>
      JSON.stringify({ ...file, version, job: { ...file.job, ...job } });
    expect(() => parseJobFile(withJob({ workflow: { webbrainWorkflow: 3, steps: [] } }))).toThrow(
      /"job.workflow": The workflow has no steps/,
    );
    expect(() => parseJobFile(withJob({ mode: "dev" }))).toThrow(/must be "act"/);
    expect(() => parseJobFile(withJob({ params: { customer: 3 } }))).toThrow(/"job.params"/);
    expect(() => parseJobFile(withJob({}, 1))).toThrow(JobFileError);
    expect(() => parseJobFile(withJob({}, 3))).toThrow(/version 3 is not supported/);
  });
});

/** A finished agent run that typed the name and saved (its trace is the repair's steps). */
function finishedRun(status: HandoverRun["status"] = "done"): HandoverRun {
  const call = (id: string, name: string, args: Record<string, unknown>, role: string, field: string) =>
    ({
      v: 1,
      type: "tool_call",
      at: "",
      id,
      name,
      args,
      ok: true,
      ms: 1,
      text: "",
      url: "https://shop.example/order",
      target: target(role, field),
      ...(name === "click_ax" ? { result: { success: true, effect: { changed: true, changes: [] } } } : {}),
    }) satisfies TraceRecord;
  return {
    status,
    text: "Saved the order.",
    records: [
      { v: 1, type: "run_start", at: "", runId: "agent", task: "t", mode: "act", url: "", verbose: "normal" },
      call("c1", "click_ax", { ref_id: 9 }, "button", "Submit"),
      { v: 1, type: "run_end", at: "", status, text: "Saved the order.", steps: 1 },
    ],
  };
}

const stoppedAtSave: ReplayResult = {
  status: "stopped",
  step: 2,
  reason: 'the page no longer matches: no button "Save"',
  completed: 1,
};

describe("a workflow job's run", () => {
  it("replayed: the agent is never asked", async () => {
    const asked: string[] = [];
    const run = await runWorkflowJob(
      WORKFLOW,
      {},
      {
        replay: async () => ({ status: "done", steps: 2 }),
        handover: async (task) => {
          asked.push(task);
          return finishedRun();
        },
      },
    );
    expect(run).toEqual({
      status: "completed",
      text: 'replayed: all 2 steps of "Order for a customer"',
      report: { outcome: "replayed" },
      replay: { status: "done", steps: 2 },
    });
    expect(asked).toEqual([]);
  });

  it("failed without handover, naming the step", async () => {
    const run = await runWorkflowJob(WORKFLOW, {}, { replay: async () => stoppedAtSave });
    expect(run.status).toBe("failed");
    expect(run.report).toEqual({
      outcome: "failed",
      step: 2,
      description: 'click_ax on button "Save" in form "Order"',
    });
    expect(run.text).toBe(
      'failed at step 2 (click_ax on button "Save" in form "Order"): the page no longer matches: no button "Save"',
    );
  });

  it("repaired with handover: the agent is told where it stopped and its steps are version 2", async () => {
    const asked: string[] = [];
    const run = await runWorkflowJob(
      WORKFLOW,
      { customer: "Grace" },
      {
        replay: async () => stoppedAtSave,
        handover: async (task) => {
          asked.push(task);
          return finishedRun();
        },
      },
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("Its replay stopped at step 2");
    expect(run.status).toBe("completed");
    expect(run.report).toEqual({
      outcome: "repaired",
      step: 2,
      description: 'click_ax on button "Save" in form "Order"',
      version: 2,
    });
    expect(run.repaired?.steps.at(-1)).toMatchObject({ tool: "click_ax", repaired: 2 });
    expect(run.repaired?.previous).toHaveLength(1);
  });

  it("failed when the agent does not finish, and the start page is never handed over", async () => {
    const unfinished = await runWorkflowJob(
      WORKFLOW,
      {},
      {
        replay: async () => stoppedAtSave,
        handover: async () => finishedRun("stopped"),
      },
    );
    expect(unfinished.report.outcome).toBe("failed");
    expect(unfinished.text).toMatch(/the agent did not finish it either \(stopped/);
    let asked = false;
    const noStart = await runWorkflowJob(
      WORKFLOW,
      {},
      {
        replay: async () => ({ status: "stopped", step: 0, reason: "could not open", completed: 0 }),
        handover: async () => {
          asked = true;
          return finishedRun();
        },
      },
    );
    expect(noStart).toMatchObject({ status: "failed", text: "failed at the start page: could not open" });
    expect(asked).toBe(false);
  });

  it("records the report and gives the repaired version to the job's next run", async () => {
    const store = new MemoryStore();
    const repairedText = serializeWorkflow({ ...WORKFLOW, version: 2 });
    const manager = new ScheduledJobManager({
      store,
      alarms: { set: async () => {}, clear: async () => {} },
      clock: { now: () => NOW },
      runner: {
        isBusy: () => false,
        run: async () => ({
          status: "completed",
          text: "repaired",
          replay: { outcome: "repaired", step: 2, version: 2 },
          workflow: repairedText,
        }),
      },
    });
    const job = await manager.create(draft(), "1");
    await manager.handleAlarm(`wb_scheduled_job:${job.id}`);
    await manager.settled(job.id);
    const after = await manager.get(job.id);
    expect(after?.lastResult).toMatchObject({
      status: "completed",
      replay: { outcome: "repaired", step: 2, version: 2 },
    });
    expect(after?.workflow?.text).toBe(repairedText);
  });
});
