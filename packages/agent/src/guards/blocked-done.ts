/**
 * blockedDone: refuse `done` while the page still shows an open dialog, a form with invalid
 * fields that someone changed (an untouched empty form is a fresh one, not an unfinished one)
 * or an error alert, and the summary claims success, because "done" with the dialog still open is the classic
 * unfinished task. At most BLOCKED_DONE_MAX times per tab, then `done` goes through with a
 * loud verification note, so a wrong probe can never trap the agent. Cleared with the
 * conversation.
 */
import { checkedDetailsOf } from "@webbrain/protocol";
import type { CompletionProbe, PageResult } from "../tools/browser-port.js";
import { wrapUntrusted } from "./untrusted.js";

export const BLOCKED_DONE_MAX = 2;

/** A summary that says the task failed is not a completion claim; do not block it. */
const ADMITS_FAILURE =
  /\b(could ?n[o']t|can ?not|unable|failed|did not|didn't|not (been )?(completed|possible|done)|blocked|need(s)? (your|the user)|please)\b/i;

export function admitsFailure(summary: string): boolean {
  return ADMITS_FAILURE.test(summary);
}

export type DoneDecision =
  | { kind: "allow" }
  | { kind: "block"; message: string }
  | { kind: "allow_with_note"; note: string };

/** An alert that reports a failure (not a "Saved" toast). */
const ERROR_MESSAGE = /\b(error|failed|invalid|required|try again|could not|cannot|unable)\b/i;

/** What on the page contradicts a success claim, in words for the model; undefined if nothing. */
export function unfinishedWork(probe: CompletionProbe): string | undefined {
  const parts: string[] = [];
  const dialogs = probe.dialogs.map((dialog) => dialog.label || dialog.name || "a dialog");
  if (dialogs.length) parts.push(`open dialog: ${dialogs.join(", ")}`);
  // An empty form nobody touched (a fresh "add another" form after a save) is not unfinished: its
  // required fields are invalid only because they are empty.
  const invalidForms = probe.forms.filter((form) => form.invalid > 0 && form.changed > 0);
  if (invalidForms.length)
    parts.push(`form with invalid fields: ${invalidForms.map((form) => form.label || "a form").join(", ")}`);
  const errors = probe.messages.map((message) => message.text).filter((text) => ERROR_MESSAGE.test(text));
  if (errors.length) parts.push(`error message: ${errors.join(" | ")}`);
  return parts.length ? parts.join("; ") : undefined;
}

export class BlockedDone {
  private readonly counts = new Map<string, number>();

  /**
   * `answer`: probe_completion's result (none: the port could not ask the page). An answer that
   * does not fit the probe's contract is read as none: the guard cannot tell, so it allows.
   */
  decide(tabId: string, summary: string, answer: PageResult | undefined): DoneDecision {
    const probe = checkedDetailsOf("probe_completion", answer);
    if (!probe || admitsFailure(summary)) return { kind: "allow" };
    const problem = unfinishedWork(probe);
    if (!problem) return { kind: "allow" };
    const count = this.counts.get(tabId) ?? 0;
    if (count >= BLOCKED_DONE_MAX) {
      return {
        kind: "allow_with_note",
        note: `Unverified: the page still showed ${problem} when the agent finished. Check it yourself.`,
      };
    }
    this.counts.set(tabId, count + 1);
    return {
      kind: "block",
      // The labels are the page's own words (a dialog's title, an alert's text): data, wrapped.
      message: `done refused (blockedDone ${count + 1}/${BLOCKED_DONE_MAX}): the page still shows what the completion check found below. Finish or close it and verify the result, then call done again. If the task truly is complete, say how you verified it.\n${wrapUntrusted("page completion check", problem)}`,
    };
  }

  count(tabId: string): number {
    return this.counts.get(tabId) ?? 0;
  }

  clear(tabId: string): void {
    this.counts.delete(tabId);
  }
}
