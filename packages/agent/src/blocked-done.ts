/**
 * blockedDone: refuse `done` while the page still shows an open dialog or an unsent form and
 * the summary claims success, because "done" with the dialog still open is the classic
 * unfinished task. At most BLOCKED_DONE_MAX times per tab, then `done` goes through with a
 * loud verification note, so a wrong probe can never trap the agent. Cleared with the
 * conversation.
 */
import type { CompletionProbe } from "./browser-port.js";

export const BLOCKED_DONE_MAX = 2;

/** A summary that says the task failed is not a completion claim; do not block it. */
const ADMITS_FAILURE =
  /\b(could ?n[o']t|can ?not|unable|failed|did not|didn't|not (been )?(completed|possible|done)|blocked|need(s)? (your|the user)|please)\b/i;

export type DoneDecision =
  | { kind: "allow" }
  | { kind: "block"; message: string }
  | { kind: "allow_with_note"; note: string };

function describe(probe: CompletionProbe): string | undefined {
  const parts: string[] = [];
  if (probe.openDialogs?.length) parts.push(`open dialog: ${probe.openDialogs.join(", ")}`);
  if (probe.visibleForms?.length) parts.push(`unsent form: ${probe.visibleForms.join(", ")}`);
  if (parts.length === 0) return undefined;
  if (probe.liveMessages?.length) parts.push(`page message: ${probe.liveMessages.join(" | ")}`);
  return parts.join("; ");
}

export class BlockedDone {
  private readonly counts = new Map<string, number>();

  decide(tabId: string, summary: string, probe: CompletionProbe | undefined): DoneDecision {
    if (!probe?.success || ADMITS_FAILURE.test(summary)) return { kind: "allow" };
    const problem = describe(probe);
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
      message: `done refused (blockedDone ${count + 1}/${BLOCKED_DONE_MAX}): the page still shows ${problem}. Finish or close it and verify the result, then call done again. If the task truly is complete, say how you verified it.`,
    };
  }

  count(tabId: string): number {
    return this.counts.get(tabId) ?? 0;
  }

  clear(tabId: string): void {
    this.counts.delete(tabId);
  }
}
