/**
 * Guards that warn and never refuse, for callers that are themselves the agent (an MCP client).
 *
 * Our loop detector and duplicate-submit guard protect our own agent loop from a model that
 * repeats itself. Over MCP the client chose every call, so refusing one it chose to repeat
 * would fight it (DESIGN.md "Over MCP the client is the agent"). These subclasses keep the
 * same counting and turn every refusal into a warning that rides along with the result.
 *
 * Invariants:
 * - The verdicts are the base classes' own; only "stop" / "blocked" become warnings.
 * - Mode rules and the permission gate are not guards: they are untouched and still refuse.
 */
import { LoopDetector, type LoopVerdict } from "./loop-detector.js";
import { DuplicateSubmitGuard, type SubmitCheck } from "./submit-guard.js";

/** Why a warning did not refuse: the words a client reads beside its result. */
const NOT_REFUSED = "It ran anyway: over MCP the client decides what to repeat.";

export class AdvisoryLoopDetector extends LoopDetector {
  override recordAction(tool: string, args: Record<string, unknown>): LoopVerdict {
    return soften(super.recordAction(tool, args));
  }

  override recordNavigation(url: string): LoopVerdict {
    return soften(super.recordNavigation(url));
  }
}

function soften(verdict: LoopVerdict): LoopVerdict {
  if (verdict.kind !== "stop") return verdict;
  const what = verdict.message.replace(/^Stopped: the agent /, "").replace(/\. It is stuck.*$/, "");
  return { ...verdict, kind: "nudge", message: `Loop warning: this session ${what}. ${NOT_REFUSED}` };
}

export class AdvisorySubmitGuard extends DuplicateSubmitGuard {
  #warnings: string[] = [];

  override check(tabId: string, label: string, url: string, allowResubmit: boolean): SubmitCheck {
    const first = super.check(tabId, label, url, allowResubmit);
    if (first.allowed) return first;
    this.#warnings.push(
      `Duplicate-submit warning: ${first.message.replace(/^Blocked duplicate submit: /, "")} ${NOT_REFUSED}`,
    );
    // Let it through as an acknowledged resubmit, which also re-arms the window.
    return super.check(tabId, label, url, true);
  }

  /** Warnings raised since the last call; the caller adds them to that call's result. */
  takeWarnings(): string[] {
    const warnings = this.#warnings;
    this.#warnings = [];
    return warnings;
  }
}
