/**
 * blockedDone: refuse `done` while the page still shows an open dialog, a form with invalid
 * fields that someone changed (an untouched empty form is a fresh one, not an unfinished one)
 * or an error alert, and the summary claims success, because "done" with the dialog still open is the classic
 * unfinished task. At most BLOCKED_DONE_MAX times per tab, then `done` goes through with a
 * loud verification note, so a wrong probe can never trap the agent. Cleared with the
 * conversation.
 */
import type { CompletionProbe, JsonValue } from "../tools/browser-port.js";
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

function field(entry: JsonValue, key: string): JsonValue | undefined {
  return entry && typeof entry === "object" && !Array.isArray(entry) ? entry[key] : undefined;
}

function label(entry: JsonValue, fallback: string): string {
  if (typeof entry === "string") return entry;
  const text = field(entry, "label") ?? field(entry, "text") ?? field(entry, "name");
  return typeof text === "string" && text ? text : fallback;
}

function list(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

/** What on the page contradicts a success claim, in words for the model; undefined if nothing. */
export function unfinishedWork(probe: CompletionProbe): string | undefined {
  const parts: string[] = [];
  const dialogs = list(probe.dialogs).map((dialog) => label(dialog, "a dialog"));
  if (dialogs.length) parts.push(`open dialog: ${dialogs.join(", ")}`);
  const invalidForms = list(probe.forms).filter((form) => {
    const invalid = field(form, "invalid");
    if (typeof invalid !== "number" || invalid === 0) return false;
    // An empty form nobody touched (a fresh "add another" form after a save) is not unfinished:
    // its required fields are invalid only because they are empty.
    const changed = field(form, "changed") ?? field(form, "filled");
    return typeof changed !== "number" || changed > 0;
  });
  if (invalidForms.length)
    parts.push(`form with invalid fields: ${invalidForms.map((form) => label(form, "a form")).join(", ")}`);
  const errors = list(probe.messages)
    .map((message) => label(message, ""))
    .filter((text) => ERROR_MESSAGE.test(text));
  if (errors.length) parts.push(`error message: ${errors.join(" | ")}`);
  return parts.length ? parts.join("; ") : undefined;
}

export class BlockedDone {
  private readonly counts = new Map<string, number>();

  decide(tabId: string, summary: string, probe: CompletionProbe | undefined): DoneDecision {
    if (!probe?.success || admitsFailure(summary)) return { kind: "allow" };
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
