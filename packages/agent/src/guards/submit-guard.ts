/**
 * Duplicate-submit guard: blocks a second click on a submit-like control (Submit, Send, Pay,
 * Place order, ...) on the same tab and URL within SUBMIT_WINDOW_MS, because a double submit
 * can pay twice or post twice, and models retry when the page is slow to react.
 *
 * Invariants (spec 000):
 * - Key = tab + normalized label + URL; only submit-like labels are tracked.
 * - `_allowResubmit: true` lets the click through and re-arms the window, so a further rapid
 *   duplicate needs its own acknowledgement.
 * - A tab's entries are cleared by navigation; an entry expires after SUBMIT_WINDOW_MS; a
 *   submit the page rejected on validation is forgotten, so a corrected retry may proceed.
 */
import { wrapUntrusted } from "./untrusted.js";

export const SUBMIT_WINDOW_MS = 45_000;

const SUBMIT_LIKE =
  /\b(submit|send|post|publish|pay|purchase|buy|order|checkout|check out|confirm|book|reserve|transfer|donate|sign up|register|apply|save|create|delete|remove|place)\b/i;

export function normalizeLabel(label: string): string {
  return label.replace(/\s+/g, " ").trim().toLowerCase();
}

export function isSubmitLike(label: string): boolean {
  return SUBMIT_LIKE.test(label);
}

export type SubmitCheck = { allowed: true; key?: string } | { allowed: false; message: string };

export class DuplicateSubmitGuard {
  private readonly entries = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  private key(tabId: string, label: string, url: string): string {
    return `${tabId}\u0000${normalizeLabel(label)}\u0000${url.replace(/#.*$/, "")}`;
  }

  /**
   * Decide on a click before it runs. A click that is let through is recorded (re-armed when
   * acknowledged); call `rejected` afterwards if the page refused it on validation.
   */
  check(tabId: string, label: string, url: string, allowResubmit: boolean): SubmitCheck {
    if (!label || !isSubmitLike(label)) return { allowed: true };
    const key = this.key(tabId, label, url);
    const previous = this.entries.get(key);
    const now = this.now();
    if (previous !== undefined && now - previous < SUBMIT_WINDOW_MS && !allowResubmit) {
      const seconds = Math.round((now - previous) / 1000);
      return {
        allowed: false,
        // The label is the control's name on the page: data, so it stays inside the wrapper.
        message: `Blocked duplicate submit: the control named below was already clicked on this page ${seconds} s ago. Re-read the page to see whether it worked (a success message, a new URL, a changed list). Only if it visibly failed, repeat the click with _allowResubmit: true.\n${wrapUntrusted("page control name", `"${label.trim()}"`)}`,
      };
    }
    this.entries.set(key, now);
    return { allowed: true, key };
  }

  /** The page refused the submit (validation): a corrected retry is not a duplicate. */
  rejected(key: string): void {
    this.entries.delete(key);
  }

  /** The tab navigated: its submits are history. */
  navigated(tabId: string): void {
    for (const key of [...this.entries.keys()]) {
      if (key.startsWith(`${tabId}\u0000`)) this.entries.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
