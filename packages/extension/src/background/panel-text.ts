/**
 * How runs are worded in the panel: one-line tool summaries, the plan shown for approval, and
 * how a run ended. Pure functions, so what the user reads is tested without a browser (where
 * `t` answers in English).
 *
 * The agent words its results in English for the runner; the panel words them itself, in the
 * user's language, from the data the agent gives beside its text (the result's status and step
 * count, an AgentError's kind and provider detail). Only the model's own words and what a
 * server said stay as they came.
 */
import type { AgentError, AgentEvent, LoopStopDetail, Plan, RunResult } from "@webbrain/agent";
import { t } from "../shared/i18n.js";

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
  const risks = plan.risks.length > 0 ? `\n${t("planRisks", plan.risks.join("; "))}` : "";
  return `${t("planGoal", plan.goal)}\n${steps.join("\n")}${risks}`;
}

/**
 * What the panel says about a run that paused, was refused or failed: the agent's result in the
 * user's language where the agent gave its facts as data, else the agent's own text.
 */
export function resultText(result: RunResult): string {
  switch (result.status) {
    case "step_limit":
      return t("noticeStepLimit", result.steps);
    case "plan_rejected":
      return t("noticePlanRejected");
    case "answered":
      if (result.allowApi === undefined) return result.text;
      return t(result.allowApi ? "allowApiOn" : "allowApiOff");
    case "error":
    case "stopped":
      return result.error ? agentErrorText(result.error) : result.text;
    default:
      return result.text;
  }
}

/** An AgentError in the user's language; kinds without a translation keep the agent's text. */
export function agentErrorText(error: AgentError): string {
  const detail = error.provider;
  if (error.kind === "busy") return t("errorBusy");
  if (error.kind === "loop_stopped" && error.loop) return loopStopText(error.loop);
  if (!detail) return error.message;
  const cause = detail.cause ?? "";
  switch (error.kind) {
    case "provider_unreachable":
      return t("errorProviderUnreachable", detail.provider, detail.endpoint, detail.model, cause);
    case "provider_auth": {
      const refused = t(
        "errorProviderAuth",
        detail.provider,
        detail.endpoint,
        detail.model,
        detail.status ?? "",
        cause,
      );
      return detail.ollamaOrigin ? `${refused} ${t("errorOllamaOrigin")}` : refused;
    }
    case "provider_timeout":
      return t("errorProviderTimeout", detail.provider, detail.model, detail.timeoutSeconds ?? "?");
    case "provider_http":
      return t("errorProviderHttp", detail.provider, detail.endpoint, detail.model, cause);
    case "context_overflow":
      return t("errorContextOverflow", detail.provider, detail.endpoint, detail.model, cause);
    default:
      return error.message;
  }
}

function loopStopText(loop: LoopStopDetail): string {
  switch (loop.detector) {
    case "repeat":
      return t("loopStopRepeat", loop.subject, loop.count);
    case "coordinate":
      return t("loopStopCoordinate", loop.subject, loop.count);
    case "navigation":
      return t("loopStopNavigation", loop.subject, loop.count);
  }
}

/** The loop detector's warning as the user reads it (the model reads its own note). */
export function nudgeText(nudge: Extract<AgentEvent, { type: "nudge" }>): string {
  const { subject, count } = nudge;
  if (subject === undefined || count === undefined) return t("noticeLoopCheck", nudge.message);
  switch (nudge.detector) {
    case "repeat":
      return t("loopNudgeRepeat", subject, count);
    case "coordinate":
      return t("loopNudgeCoordinate", subject, count);
    case "navigation":
      return t("loopNudgeNavigation", subject, count);
    default:
      return t("noticeLoopCheck", nudge.message);
  }
}
