/**
 * What an agent run reports: progress events for a UI (sidebar, CLI) and the final result.
 * Events are plain JSON so the add-on can post them between its pages and journal them.
 */

import type { Mode } from "@webbrain/protocol";
import type { AgentError } from "../errors.js";
import type { Plan } from "./planner.js";

export type AgentEvent =
  | { type: "run_start"; tabId: string; mode: Mode }
  | { type: "step"; step: number; maxSteps: number }
  | { type: "text_delta"; delta: string }
  | { type: "assistant_text"; text: string }
  | { type: "tool_call"; id: string; name: string; args: Record<string, unknown> }
  /** `secret`: the call typed into a secret field (secret-values.ts): record nothing it typed. */
  | { type: "tool_result"; id: string; name: string; ok: boolean; preview: string; secret?: boolean }
  /** `message` is the model's note; `subject` and `count` say the same as data, for a UI. */
  | { type: "nudge"; detector: string; message: string; subject?: string; count?: number }
  | { type: "context_trimmed"; summarized: number; emergency: boolean; usedModel: boolean }
  | { type: "plan"; plan: Plan }
  | { type: "plan_decision"; approved: boolean }
  | { type: "run_end"; result: RunResult };

export type RunStatus =
  /** `done` was called. */
  | "done"
  /** The model answered with text and no tool call. */
  | "answered"
  /** The model asked the user a question (clarify). */
  | "clarify"
  /** maxSteps model turns were used; Continue resumes. */
  | "step_limit"
  /** A guard stopped the run (loop detector, malformed calls). */
  | "stopped"
  | "aborted"
  | "plan_rejected"
  | "error";

export interface RunResult {
  status: RunStatus;
  /** The answer, the done summary, the question, or what went wrong. */
  text: string;
  /** Model turns used by this task so far. */
  steps: number;
  error?: AgentError;
  /** Set when the message only switched `/allow-api`: whether API mutations are now allowed. */
  allowApi?: boolean;
}

export type AgentEventListener = (event: AgentEvent) => void;
