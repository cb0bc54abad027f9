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
  /** The browser itself went away (crashed, killed, its connection closed): nothing more can run. */
  | "browser_unavailable"
  | "internal";

import type { LoopDetectorName } from "./guards/loop-detector.js";

/**
 * A provider failure as data, beside the English message: what a UI needs to word it in the
 * user's language (the add-on does, through browser.i18n) without parsing the message.
 */
export interface ProviderErrorDetail {
  /** The provider's name, e.g. "llama.cpp". */
  provider: string;
  /** Where it was called: the base URL, or the provider kind when there is none. */
  endpoint: string;
  model: string;
  /** What the server or the network said, as it said it (never translated). */
  cause?: string;
  /** The HTTP status of a refused request (provider_auth). */
  status?: string;
  /** The request timeout that ran out, in seconds (provider_timeout). */
  timeoutSeconds?: number;
  /** The refusal may be Ollama's check of the caller's origin (provider_auth). */
  ollamaOrigin?: boolean;
}

/** A loop stop as data (loop_stopped): which detector, on what, how many times. */
export interface LoopStopDetail {
  detector: LoopDetectorName;
  /** The tool repeated (repeat), the point clicked ("x, y"), or the URL (navigation). */
  subject: string;
  count: number;
}

/** The facts of an error as data, beside its English message. */
export interface AgentErrorDetail {
  /** Set on provider_* and context_overflow errors. */
  provider?: ProviderErrorDetail;
  /** Set on loop_stopped errors. */
  loop?: LoopStopDetail;
}

export class AgentError extends Error {
  readonly kind: AgentErrorKind;
  readonly provider?: ProviderErrorDetail;
  readonly loop?: LoopStopDetail;
  constructor(kind: AgentErrorKind, message: string, detail: AgentErrorDetail = {}) {
    super(message);
    this.name = "AgentError";
    this.kind = kind;
    if (detail.provider) this.provider = detail.provider;
    if (detail.loop) this.loop = detail.loop;
  }
}

/**
 * What a port throws once its browser is gone (the runner: Firefox died or its BiDi socket
 * closed). The loop ends the run at once on it instead of telling the model to try again.
 */
export function browserUnavailable(message: string): AgentError {
  return new AgentError("browser_unavailable", message);
}

/** True for the error a port throws once its browser is gone. */
export function isBrowserUnavailable(error: unknown): error is AgentError {
  return error instanceof AgentError && error.kind === "browser_unavailable";
}

/** The error's kind when it is an AgentError, else undefined. */
export function agentErrorKind(error: unknown): AgentErrorKind | undefined {
  return error instanceof AgentError ? error.kind : undefined;
}
