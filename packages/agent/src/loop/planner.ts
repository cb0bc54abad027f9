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
  /**
   * The person or conversation a message goes to, only when the user's request asks to send an
   * external message (the recipient guard pins it; see recipient-guard.ts).
   */
  messageRecipient?: string;
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
    message_recipient: Type.Optional(Type.String()),
  }),
};

export const PLANNER_PROMPT =
  "Before acting, plan. Call submit_plan with the goal, 2-8 concrete steps (action + target) and risks (payments, messages sent, deletions, anything irreversible). Only if the user's request asks you to send a message to someone, set message_recipient to that recipient exactly as the user wrote it. For a task repeated over many items, pace it: one item at a time, check each before the next. Do not act yet.";

/**
 * The planner's system prompt for a conversation: the base prompt, plus API-replay guidance only
 * when the conversation already has /allow-api (token-minimal gating, spec 000) and the API
 * shortcut observer saw calls on the tab.
 */
export function plannerPrompt(allowApi: boolean, apiGuidance: string): string {
  return allowApi && apiGuidance ? `${PLANNER_PROMPT}\n\n${apiGuidance}` : PLANNER_PROMPT;
}

/** The plan from the planner's answer: its submit_plan call, else its text as one step. */
export function planFromAnswer(answer: AssistantMessage, task: string): Plan {
  for (const block of answer.content) {
    if (block.type !== "toolCall" || block.name !== "submit_plan") continue;
    const args = block.arguments as {
      goal?: unknown;
      steps?: unknown;
      risks?: unknown;
      message_recipient?: unknown;
    };
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
      ...(typeof args.message_recipient === "string" && args.message_recipient.trim()
        ? { messageRecipient: args.message_recipient.trim() }
        : {}),
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
  const to = plan.messageRecipient ? `\nMessage recipient: ${plan.messageRecipient}` : "";
  return `${heading} for "${plan.goal}":\n${steps.join("\n")}${risks}${to}`;
}
