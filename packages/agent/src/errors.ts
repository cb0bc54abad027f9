/**
 * Typed errors the agent reports. Every one says what happened and what to do next, in its
 * message, because the message is what the user (or the model) sees. `kind` lets a UI or the
 * runner branch without parsing text.
 */

export type AgentErrorKind =
  | "provider_unreachable"
  | "provider_auth"
  | "provider_timeout"
  | "provider_http"
  | "context_overflow"
  | "malformed_tool_call"
  | "mode_tier"
  | "loop_stopped"
  | "aborted"
  | "config"
  | "busy"
  | "internal";

export class AgentError extends Error {
  readonly kind: AgentErrorKind;
  constructor(kind: AgentErrorKind, message: string) {
    super(message);
    this.name = "AgentError";
    this.kind = kind;
  }
}

/** The error's kind when it is an AgentError, else undefined. */
export function agentErrorKind(error: unknown): AgentErrorKind | undefined {
  return error instanceof AgentError ? error.kind : undefined;
}
