/**
 * What the sidebar shows for one tab, as data (never HTML): the background page appends an
 * item the moment it is final (a user message, a finished step's text, a finished tool call,
 * an error), mirrors the list to `browser.storage.session` as `tabChat:<tabId>`, and the
 * sidebar renders it. Keeping data rather than rendered HTML means a restored transcript is
 * sanitized again on render, exactly like a live one.
 */
import type { Mode } from "@webbrain/protocol";

export type TranscriptItem =
  /** `attachments`: names of the files attached to the message; `offered`: files offered for the page then. */
  | { kind: "user"; text: string; mode: Mode; at: number; attachments?: string[]; offered?: string[] }
  | { kind: "assistant"; text: string; at: number }
  | {
      kind: "tool";
      callId: string;
      name: string;
      args: string;
      success: boolean;
      summary: string;
      /** The result as the model saw it (capped); shown in Verbose. */
      detail: string;
      at: number;
    }
  | { kind: "error"; text: string; at: number }
  | { kind: "notice"; text: string; at: number };

/** Oldest items drop first past this many, so one tab cannot fill session storage. */
export const MAX_TRANSCRIPT_ITEMS = 400;

/** Append items to a transcript, keeping only the newest MAX_TRANSCRIPT_ITEMS. */
export function appendBounded(items: readonly TranscriptItem[], added: readonly TranscriptItem[]) {
  const all = [...items, ...added];
  return all.length > MAX_TRANSCRIPT_ITEMS ? all.slice(all.length - MAX_TRANSCRIPT_ITEMS) : all;
}
