/**
 * Repair and save, browser-free: a stopped replay finished by the agent becomes version 2 with
 * the old version kept, the agent's typed values map back to the replay's parameters, a step a
 * repair wrote that fails again is not rewritten, files of formats 1 and 2 still load, and the
 * diff of two versions names the changed step. (In Firefox: runner/test/workflow-repair.test.ts.)
 */
import { describe, expect, it } from "vitest";
import {
  diffWorkflows,
  formatWorkflowDiff,
  parseWorkflow,
  repairWorkflow,
  serializeWorkflow,
  type TraceRecord,
  type Workflow,
  WorkflowError,
  workflowAtVersion,
  workflowVersionNumber,
} from "../src/index.js";

const target = (role: string, name: string) => ({ role, name, within: [{ role: "form", name: "Order" }] });

/** A format-2 file as `workflow save` wrote it before revisions. */
const VERSION_ONE = {
  webbrainWorkflow: 2,
  name: "Order for a customer",
  goal: "order 3 for Ada Lovelace",
  createdAt: "2026-12-01T10:00:00.000Z",
  fromRun: "run-1",
  startUrl: "https://shop.example/order",
  params: [
    { name: "customer", default: "Ada Lovelace", field: "Name" },
    { name: "email", default: "ada@example.com", field: "Email" },
    { name: "quantity", default: "3", field: "Quantity" },
  ],
  steps: [
    { tool: "type_ax", args: { value: "{{customer}}" }, target: target("textbox", "Name"), url: "u" },
    { tool: "type_ax", args: { value: "{{email}}" }, target: target("textbox", "Email"), url: "u" },
    { tool: "type_ax", args: { value: "{{quantity}}" }, target: target("spinbutton", "Quantity"), url: "u" },
    { tool: "click_ax", args: {}, target: target("button", "Save"), url: "u", expect: { changed: true } },
  ],
};

let at = 0;
function call(name: string, args: Record<string, unknown>, role?: string, field?: string): TraceRecord {
  return {
    v: 1,
    type: "tool_call",
    at: "",
    id: `c${++at}`,
    name,
    args,
    ok: true,
    ms: 1,
    text: "",
    url: "https://shop.example/order",
    ...(role && field ? { target: target(role, field) } : {}),
    ...(name === "click_ax" ? { result: { success: true, effect: { changed: true, changes: [] } } } : {}),
  };
}

/** The agent's run that finished the order on a page where "Email" became "Phone". */
function handoverRun(status = "done"): TraceRecord[] {
  return [
    {
      v: 1,
      type: "run_start",
      at: "",
      runId: "agent-run",
      task: "finish",
      mode: "act",
      url: "",
      verbose: "normal",
    },
    call("get_accessibility_tree", {}),
    call("type_ax", { ref_id: 7, value: "555-0100" }, "textbox", "Phone"),
    call("type_ax", { ref_id: 8, value: "3" }, "spinbutton", "Quantity"),
    call("click_ax", { ref_id: 9 }, "button", "Save"),
    { v: 1, type: "run_end", at: "", status, text: "Finished.", steps: 3 },
  ];
}

const STOPPED = {
  status: "stopped" as const,
  step: 2,
  reason: 'the page no longer matches: no textbox named "Email"',
  completed: 1,
};

function repaired(): Workflow {
  const outcome = repairWorkflow(parseWorkflow(JSON.stringify(VERSION_ONE)), STOPPED, handoverRun(), {
    params: { customer: "Grace Hopper" },
    now: () => Date.parse("2026-12-04T12:00:00Z"),
  });
  if (!outcome.saved) throw new Error(outcome.reason);
  return outcome.workflow;
}

describe("repairing a stopped replay into a new version", () => {
  it("keeps the steps the replay did, takes the agent's from the stop on, and keeps version 1", () => {
    const outcome = repairWorkflow(parseWorkflow(JSON.stringify(VERSION_ONE)), STOPPED, handoverRun());
    expect(outcome).toMatchObject({ saved: true, version: 2, step: 2, replaced: 3, written: 3 });
    const workflow = repaired();
    expect(workflow.webbrainWorkflow).toBe(3);
    expect(workflow.version).toBe(2);
    expect(workflow.fromRun).toBe("agent-run");
    expect(workflow.repair).toEqual({ step: 2, reason: STOPPED.reason, fromRun: "agent-run" });
    expect(workflow.steps.map((s) => [s.tool, s.target?.name, s.args, s.repaired])).toEqual([
      ["type_ax", "Name", { value: "{{customer}}" }, undefined],
      ["type_ax", "Phone", { value: "{{phone}}" }, 2],
      ["type_ax", "Quantity", { value: "{{quantity}}" }, 2],
      ["click_ax", "Save", {}, 2],
    ]);
    // "3" is the quantity the replay used; "555-0100" is new; "email" is typed by no step now.
    expect(workflow.params).toEqual([
      { name: "customer", default: "Ada Lovelace", field: "Name" },
      { name: "quantity", default: "3", field: "Quantity" },
      { name: "phone", default: "555-0100", field: "Phone" },
    ]);
    expect(workflow.previous).toHaveLength(1);
    expect(workflowAtVersion(workflow, 1).steps).toEqual(VERSION_ONE.steps);
    // Written and read back, it is the same workflow.
    expect(parseWorkflow(serializeWorkflow(workflow))).toEqual(workflow);
  });

  it("does not rewrite a step a repair wrote that fails again, and says so", () => {
    const again = repairWorkflow(
      repaired(),
      { status: "stopped", step: 2, reason: 'no textbox named "Phone"', completed: 1, repairedIn: 2 },
      handoverRun(),
    );
    expect(again).toEqual({
      saved: false,
      step: 2,
      reason:
        'step 2 was written by the repair in version 2 and failed again (no textbox named "Phone"); it is not rewritten again: check the page, then record the workflow anew',
    });
  });

  it("saves nothing from an agent that did not finish", () => {
    const outcome = repairWorkflow(parseWorkflow(JSON.stringify(VERSION_ONE)), STOPPED, handoverRun("error"));
    expect(outcome).toMatchObject({ saved: false, reason: expect.stringMatching(/did not finish/) });
  });
});

describe("workflow versions", () => {
  it("loads format 1 and 2 files as version 1 and refuses a damaged earlier version", () => {
    for (const format of [1, 2]) {
      const old = parseWorkflow(JSON.stringify({ ...VERSION_ONE, webbrainWorkflow: format }));
      expect(workflowVersionNumber(old)).toBe(1);
      expect(old.previous).toBeUndefined();
      expect(old.steps).toEqual(VERSION_ONE.steps);
    }
    const damaged = { ...repaired(), previous: [{ version: 1 }] };
    expect(() => parseWorkflow(JSON.stringify(damaged))).toThrow(WorkflowError);
    expect(() => workflowAtVersion(repaired(), 5)).toThrow(/has no version 5 \(its versions: 1, 2\)/);
  });

  it("diffs two versions: the changed steps and parameters, the rest unchanged", () => {
    const workflow = repaired();
    const diff = diffWorkflows(workflowAtVersion(workflow, 1), workflow);
    expect(diff.same).toBe(false);
    expect(formatWorkflowDiff(diff)).toEqual([
      '  1. type_ax on textbox "Name" in form "Order" {"value":"{{customer}}"}',
      '- 2. type_ax on textbox "Email" in form "Order" {"value":"{{email}}"}',
      '+ 2. type_ax on textbox "Phone" in form "Order" {"value":"{{phone}}"}',
      '  3. type_ax on spinbutton "Quantity" in form "Order" {"value":"{{quantity}}"}',
      '  4. click_ax on button "Save" in form "Order" {}',
      '- parameter email ("ada@example.com")',
      '+ parameter phone ("555-0100")',
    ]);
    expect(diffWorkflows(workflow, workflow).same).toBe(true);
  });
});
