// The loop's control flow: abort mid-stream, the step limit then Continue, Plan before Act.
import { lastToolResultText, toolNames, userTexts } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, Plan, PlanDecision } from "../src/index.js";
import { type Harness, harness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const tree = { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
const click = (ref: number) => ({ toolCalls: [{ name: "click_ax", arguments: { ref_id: ref } }] });

describe("abort", () => {
  it("stops mid-stream, leaves a conversation the next message can continue", async () => {
    h = await harness({
      script: [
        {
          text: "I will now read the page carefully and then act on it.",
          toolCalls: [{ name: "click_ax", arguments: { ref_id: 4 } }],
        },
        { text: "fresh answer" },
      ],
      eventDelayMs: 150,
    });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    const result = await h.agent.processMessage("1", "go", {
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "text_delta") controller.abort();
      },
    });
    expect(result.status).toBe("aborted");
    expect(result.error?.kind).toBe("aborted");
    // The answer streams in 3 pieces; the run stopped after the first, mid-stream.
    expect(events.filter((event) => event.type === "text_delta").length).toBeGreaterThan(0);
    expect(events.filter((event) => event.type === "text_delta").length).toBeLessThan(3);
    // The half-streamed tool call never ran.
    expect(h.browser.named("click_ax")).toHaveLength(0);
    const next = await h.agent.processMessage("1", "try again");
    expect(next.text).toBe("fresh answer");
  });

  it("stops between tool calls of a batch; skipped calls still get results", async () => {
    const controller = new AbortController();
    h = await harness({
      script: [
        {
          toolCalls: [
            { name: "get_accessibility_tree", arguments: {} },
            { name: "click_ax", arguments: { ref_id: 4 } },
          ],
        },
        { text: "after" },
      ],
    });
    const result = await h.agent.processMessage("1", "go", {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "tool_result") controller.abort();
      },
    });
    expect(result.status).toBe("aborted");
    expect(h.browser.named("click_ax")).toHaveLength(0);
    await h.agent.processMessage("1", "continue please");
    expect(lastToolResultText(h.llm.requests[1] as never)).toContain("[click_ax skipped]");
  });

  it("stops at once while a page action hangs, and while the plan waits for approval", async () => {
    // Stop comes once the page action is under way (a fixed timer could fire before the model
    // even asked for the click on a loaded machine), and the action never settles: only the
    // abort can end this run.
    const controller = new AbortController();
    const abortSoon = (c: AbortController) => () => {
      setTimeout(() => c.abort(), 50);
      return new Promise<never>(() => {});
    };
    h = await harness({
      script: [click(4), { text: "next" }],
      pages: { "https://shop.example/": { title: "Shop", tree: [], onAction: abortSoon(controller) } },
    });
    const result = await h.agent.processMessage("1", "click", { signal: controller.signal });
    expect(result.status).toBe("aborted");
    expect((await h.agent.processMessage("1", "again")).text).toBe("next");
    expect(lastToolResultText(h.llm.requests[1] as never)).toContain("[click_ax aborted]");
    await h.close();

    const planController = new AbortController();
    h = await harness({
      script: [{ toolCalls: [{ name: "submit_plan", arguments: { goal: "g", steps: [] } }] }],
      agent: { planBeforeAct: true, planApprover: abortSoon(planController) },
    });
    const planned = await h.agent.processMessage("1", "task", { signal: planController.signal });
    expect(planned.status).toBe("aborted");
    expect(h.browser.calls.filter((call) => call.method === "pageAction")).toHaveLength(0);
  });
});

describe("step limit", () => {
  it("pauses at maxSteps, then Continue resumes the same task", async () => {
    h = await harness({
      script: [
        tree,
        click(4),
        tree,
        tree,
        { toolCalls: [{ name: "done", arguments: { summary: "Added." } }] },
      ],
      agent: { maxSteps: 3 },
    });
    const paused = await h.agent.processMessage("1", "add to cart");
    expect(paused).toMatchObject({ status: "step_limit", steps: 3 });
    expect(paused.text).toContain('Send "continue"');
    expect(((await h.store.get("agentConv:1")) as { pendingContinue: boolean }).pendingContinue).toBe(true);

    const resumed = await h.agent.processMessage("1", "continue");
    expect(resumed).toMatchObject({ status: "done", text: "Added.", steps: 2 });
    expect(userTexts(h.llm.requests[3] as never)).toContain("Continue the task.");
    expect((await h.agent.continueRun("1")).text).toContain("no paused task");
  });

  it("defaults to 130 steps", async () => {
    h = await harness({ script: [] });
    expect(h.agent.maxSteps).toBe(130);
  });
});

describe("Plan before Act", () => {
  const planStep = {
    toolCalls: [
      {
        name: "submit_plan",
        arguments: {
          goal: "Add a lamp",
          steps: [{ action: "read tree" }, { action: "click", target: "Add to cart" }],
          risks: [],
        },
      },
    ],
  };

  it("runs no action before the user approves; a rejection ends the task with nothing done", async () => {
    const plans: Plan[] = [];
    h = await harness({
      script: [planStep],
      agent: {
        planBeforeAct: true,
        planApprover: async (plan): Promise<PlanDecision> => {
          plans.push(plan);
          return { approved: false, feedback: "not now" };
        },
      },
    });
    const result = await h.agent.processMessage("1", "add a lamp");
    expect(result.status).toBe("plan_rejected");
    expect(result.text).toContain("not now");
    expect(plans[0]).toEqual({
      goal: "Add a lamp",
      steps: [{ action: "read tree" }, { action: "click", target: "Add to cart" }],
      risks: [],
    });
    expect(h.browser.calls.filter((call) => call.method === "pageAction")).toHaveLength(0);
    expect(toolNames(h.llm.requests[0] as never)).toEqual(["submit_plan"]);
  });

  it("asks before the first action, then runs with the approved plan in context", async () => {
    const order: string[] = [];
    h = await harness({
      script: [
        planStep,
        (request) => {
          expect(userTexts(request)[0]).toContain('Approved plan for "Add a lamp"');
          return click(4);
        },
        { text: "done" },
      ],
      agent: {
        planBeforeAct: true,
        planApprover: async () => {
          order.push(`approve (actions so far: ${h?.browser.named("click_ax").length})`);
          return { approved: true };
        },
      },
    });
    const events: AgentEvent[] = [];
    await h.agent.processMessage("1", "add a lamp", { onEvent: (event) => events.push(event) });
    expect(order).toEqual(["approve (actions so far: 0)"]);
    expect(h.browser.named("click_ax")).toHaveLength(1);
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(["plan", "plan_decision"]));
  });

  it("Ask mode needs no plan; planBeforeAct without an approver is a config error", async () => {
    h = await harness({
      script: [{ text: "read only" }],
      agent: { planBeforeAct: true, planApprover: async () => ({ approved: false }) },
    });
    expect((await h.agent.processMessage("1", "what is here?", { mode: "ask" })).text).toBe("read only");
    await expect(harness({ script: [], agent: { planBeforeAct: true } })).rejects.toThrow(
      /planBeforeAct needs a planApprover/,
    );
  });
});
