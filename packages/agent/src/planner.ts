/**
 * Plan before Act: before any action tool runs in an Act/Dev task, the model writes a
 * structured plan (goal, steps, risks) through the `submit_plan` tool and the user approves it
 * through an injectable callback. Rejection ends the task with no action taken.
 *
 * Invariant: while a plan is required and not approved, the executor refuses every non-observe
 * tool, whatever the model sends (the plan gate is enforced where tools run).
 */
import type { AssistantMessage, Tool } from "@mariozechner/pi-ai";
import { Type } from "typebox";

export interface PlanStep {
  action: string;
  /** What the step acts on (a page, a field, a button). */
  target?: string;
}

export interface Plan {
  goal: string;
  steps: PlanStep[];
  /** Irreversible or sensitive effects (payments, messages, deletions). */
  risks: string[];
}

export type PlanDecision = { approved: true } | { approved: false; feedback?: string };

export type PlanApprover = (plan: Plan) => Promise<PlanDecision>;

export const SUBMIT_PLAN_TOOL: Tool = {
  name: "submit_plan",
  description: "Submit the plan for the user's approval.",
  parameters: Type.Object({
    goal: Type.String(),
    steps: Type.Array(Type.Object({ action: Type.String(), target: Type.Optional(Type.String()) })),
    risks: Type.Optional(Type.Array(Type.String())),
  }),
};

export const PLANNER_PROMPT =
  "Before acting, plan. Call submit_plan with the goal, 2-8 concrete steps (action + target) and risks (payments, messages sent, deletions, anything irreversible). Do not act yet.";

/** The plan from the planner's answer: its submit_plan call, else its text as one step. */
export function planFromAnswer(answer: AssistantMessage, task: string): Plan {
  for (const block of answer.content) {
    if (block.type !== "toolCall" || block.name !== "submit_plan") continue;
    const args = block.arguments as { goal?: unknown; steps?: unknown; risks?: unknown };
    const steps = Array.isArray(args.steps)
      ? args.steps
          .map((step): PlanStep => {
            const record = (step ?? {}) as { action?: unknown; target?: unknown };
            const action = typeof step === "string" ? step : String(record.action ?? "");
            return typeof record.target === "string" ? { action, target: record.target } : { action };
          })
          .filter((step) => step.action)
      : [];
    return {
      goal: typeof args.goal === "string" && args.goal ? args.goal : task,
      steps,
      risks: Array.isArray(args.risks) ? args.risks.map(String) : [],
    };
  }
  const text = answer.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("")
    .trim();
  return { goal: task, steps: text ? [{ action: text }] : [], risks: [] };
}

/** The plan as text; `heading` says whose view it is ("Plan" before approval, "Approved plan" after). */
export function planAsText(plan: Plan, heading = "Plan"): string {
  const steps = plan.steps.map(
    (step, index) => `${index + 1}. ${step.action}${step.target ? ` (${step.target})` : ""}`,
  );
  const risks = plan.risks.length ? `\nRisks: ${plan.risks.join("; ")}` : "";
  return `${heading} for "${plan.goal}":\n${steps.join("\n")}${risks}`;
}
