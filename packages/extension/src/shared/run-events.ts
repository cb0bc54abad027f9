/**
 * Events of one detached run, as the background page journals them and streams them to the
 * sidebar. Every event gets a sequence number from the journal; the sidebar ignores any event
 * whose number it has already seen, which is what makes a reconnect free of duplicated text.
 */

import type { RunStatus as AgentRunStatus } from "@webbrain/agent";
import type { InputKind, Mode } from "@webbrain/protocol";
import type { TranscriptItem } from "./transcript.js";

export type RunStatus = "running" | "done" | "stopped" | "error";

/**
 * A question the run waits on, answered in the panel: plan approval, a permission prompt, or a
 * take-over card (pause_for_user: the person acts in the page, then presses Continue).
 */
export interface PendingPrompt {
  promptId: string;
  /** `browser_permission`: a Firefox optional permission the sidebar requests on Allow. */
  kind: "plan" | "permission" | "browser_permission" | "takeover";
  /** The optional permission asked for (kind `browser_permission`), e.g. "history". */
  browserPermission?: string;
  title: string;
  /** Plain text (plan steps, the capability and origin asked for). */
  body: string;
  choices: { id: string; label: string }[];
  /** A text field whose words go with the answer (the take-over card's note for the model). */
  note?: { label: string };
}

export interface OpenToolCall {
  callId: string;
  name: string;
  args: string;
}

export type RunEvent =
  | { kind: "run_start"; runId: string; mode: Mode }
  /** A transcript item that just became final (also appended to `tabChat:<tabId>`). */
  | { kind: "item"; item: TranscriptItem }
  /** Streamed model text of the current step; committed later by an `item` of kind assistant. */
  | { kind: "text_delta"; text: string }
  /** The streamed text so far was thrown away (a retried generation): clear it. */
  | { kind: "text_reset" }
  | { kind: "tool_start"; call: OpenToolCall }
  | { kind: "status"; text: string }
  | { kind: "prompt"; prompt: PendingPrompt }
  | { kind: "prompt_closed"; promptId: string }
  /** Which input the run's clicks and keys use (companion-input.ts), and why, for the sidebar. */
  | { kind: "input"; input: RunInputShown }
  | {
      kind: "run_end";
      status: Exclude<RunStatus, "running">;
      message?: string;
      /**
       * How the agent ended it (its RunStatus: `clarify`, `step_limit`...), for a reader that
       * needs more than done/stopped/error: the scheduler tells a question from an answer.
       */
      ending?: AgentRunStatus;
      /** A scheduled run that handed over to a person and waited in vain (message says so). */
      needsPerson?: boolean;
    };

export interface RunInputShown {
  kind: InputKind;
  detail: string;
}

export interface JournalEntry {
  seq: number;
  /** For merged text deltas: the first sequence number this entry covers. */
  firstSeq?: number;
  /** Milliseconds since the epoch, from the journal's clock. */
  at: number;
  event: RunEvent;
}

/** What a reopened sidebar needs to rebuild a run exactly, persisted as `runUi:<tabId>`. */
export interface RunSnapshot {
  tabId: string;
  runId: string;
  mode: Mode;
  status: RunStatus;
  /** The last sequence number given out; live events after this are new to the reader. */
  seq: number;
  startedAt: number;
  endedAt?: number;
  /** Replay window: the newest events (consecutive deltas merged into one entry). */
  events: JournalEntry[];
  /** Streamed text of the current step, bounded separately from the window. */
  streamText: string;
  /** How many characters were cut from the front of streamText to respect its bound. */
  streamTextDropped: number;
  openTools: OpenToolCall[];
  prompt?: PendingPrompt;
  /** The final message of a stopped or failed run (for the panel). */
  message?: string;
  /** Trusted or synthetic input, once the run has decided. */
  input?: RunInputShown;
}
