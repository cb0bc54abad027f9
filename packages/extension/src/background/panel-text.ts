/**
 * How runs are worded in the panel: one-line tool summaries and the plan shown for approval.
 * Pure functions, so what the user reads is tested without a browser.
 */
import type { Plan } from "@webbrain/agent";

export const TOOL_SUMMARY_CHARS = 120;

/** The first non-empty line, cut to `max` characters with an ellipsis. */
export function firstLine(text: string, max: number): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** `{"ref_id":3,"value":"Ada"}` -> `ref_id 3 · value "Ada"`: what a card says in one line. */
export function argsSummary(args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return firstLine(args, TOOL_SUMMARY_CHARS);
  }
  if (typeof parsed !== "object" || parsed === null) return "";
  const parts = Object.entries(parsed).map(([key, value]) =>
    typeof value === "string" ? `${key} "${value}"` : `${key} ${JSON.stringify(value)}`,
  );
  return firstLine(parts.join(" · "), TOOL_SUMMARY_CHARS);
}

/** The plan as the user judges it (the agent's planAsText is worded for after approval). */
export function planForApproval(plan: Plan): string {
  const steps = plan.steps.map(
    (step, i) => `${i + 1}. ${step.action}${step.target ? ` (${step.target})` : ""}`,
  );
  const risks = plan.risks.length > 0 ? `\nRisks: ${plan.risks.join("; ")}` : "";
  return `Goal: ${plan.goal}\n${steps.join("\n")}${risks}`;
}
