/**
 * RunPrompts: the questions one run puts to the person at the sidebar (plan approval, the
 * permission gate, a Firefox optional permission, pause_for_user's take-over card). Each is a
 * journal `prompt` event; the sidebar's click comes back through `answer`, which journals
 * `prompt_closed` and resolves the question.
 *
 * Invariants:
 * - Stop answers every open prompt with its refusing choice (deny, reject, stop); a question
 *   asked after Stop is refused at once and shown to nobody.
 * - Prompt ids come from the run manager, unique across runs: a click on an old run's card
 *   answers nothing.
 * - A scheduled run's take-over waits at most its bound: the person is notified, and when
 *   nobody came in time the run is given up (it stops saying it needed a person).
 */
import type { PermissionAnswer, PermissionRequest, PersonAnswer, Plan, PlanDecision } from "@webbrain/agent";
import { t } from "../shared/i18n.js";
import type { PendingPrompt, RunEvent } from "../shared/run-events.js";
import { stoppedError } from "./abort.js";
import { planForApproval } from "./panel-text.js";

/** What the person answered a prompt: the choice, and the words of its text field if it has one. */
interface PromptReply {
  choiceId: string;
  note: string;
}

export interface RunPromptsDeps {
  emit(event: RunEvent): void;
  /** The run's Stop: once aborted, every question is answered with its refusal. */
  signal: AbortSignal;
  newPromptId(): string;
}

/** A take-over nobody may be watching (a scheduled run). */
export interface BoundedWait {
  waitMs: number;
  /** Tells the person, who is maybe not looking, that the run waits (a browser notification). */
  notify(reason: string): void;
  /** Takes the notification back once the wait is over. */
  clear(): void;
  /** Nobody came within `waitMs`: stop the run, saying what a person was needed for. */
  giveUp(reason: string): void;
}

export class RunPrompts {
  private readonly open = new Map<string, { resolve(reply: PromptReply): void; refuse: string }>();

  constructor(private readonly deps: RunPromptsDeps) {}

  answer(promptId: string, choiceId: string, note = ""): boolean {
    const prompt = this.open.get(promptId);
    if (!prompt) return false;
    this.open.delete(promptId);
    this.deps.emit({ kind: "prompt_closed", promptId });
    prompt.resolve({ choiceId, note });
    return true;
  }

  /** Stop: every open question gets its refusing answer. */
  refuseAll(): void {
    for (const [promptId, prompt] of this.open) this.answer(promptId, prompt.refuse);
  }

  async plan(plan: Plan): Promise<PlanDecision> {
    const { choiceId: choice } = await this.ask(
      {
        kind: "plan",
        title: t("planPromptTitle"),
        body: planForApproval(plan),
        choices: [
          { id: "approve", label: t("planApprove") },
          { id: "reject", label: t("planReject") },
        ],
      },
      "reject",
    );
    return choice === "approve" ? { approved: true } : { approved: false };
  }

  async permission(request: PermissionRequest): Promise<PermissionAnswer> {
    const { choiceId: choice } = await this.ask(
      {
        kind: "permission",
        title: t("permissionPromptTitle", request.capability, request.origin),
        body: request.detail.startsWith(request.tool) ? request.detail : `${request.tool}: ${request.detail}`,
        choices: [
          { id: "once", label: t("allowOnce") },
          { id: "always", label: t("allowAlways") },
          { id: "deny", label: t("deny") },
        ],
      },
      "deny",
    );
    return choice === "once" || choice === "always" ? choice : "deny";
  }

  /** A Firefox optional permission (webext-history.ts): true once the person allowed it. */
  async browserPermission(permission: string): Promise<boolean> {
    const { choiceId: choice } = await this.ask(
      {
        kind: "browser_permission",
        browserPermission: permission,
        title: t("browserPermissionTitle"),
        body: t("browserPermissionHistoryBody"),
        choices: [
          { id: "allow", label: t("browserPermissionAllow") },
          { id: "deny", label: t("deny") },
        ],
      },
      "deny",
    );
    return choice === "allow";
  }

  /** pause_for_user: the take-over card, answered by Continue with the person's note. */
  async takeOver(message: string, bound: BoundedWait | undefined): Promise<PersonAnswer> {
    const reason = message.trim() || t("takeoverNoReason");
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (bound) {
      bound.notify(reason);
      timer = setTimeout(() => bound.giveUp(reason), bound.waitMs);
    }
    try {
      const reply = await this.ask(
        {
          kind: "takeover",
          title: t("takeoverTitle"),
          body: reason,
          note: { label: t("takeoverNoteLabel") },
          choices: [{ id: "continue", label: t("takeoverContinue") }],
        },
        "stop",
      );
      // Stop (or the scheduled wait running out) answers "stop": the call ends as stopped.
      if (reply.choiceId !== "continue") throw stoppedError();
      return { resumed: true, said: reply.note.trim() };
    } finally {
      clearTimeout(timer);
      bound?.clear();
    }
  }

  private ask(prompt: Omit<PendingPrompt, "promptId">, refuse: string): Promise<PromptReply> {
    if (this.deps.signal.aborted) return Promise.resolve({ choiceId: refuse, note: "" });
    const promptId = this.deps.newPromptId();
    return new Promise<PromptReply>((resolve) => {
      this.open.set(promptId, { resolve, refuse });
      this.deps.emit({ kind: "prompt", prompt: { promptId, ...prompt } });
    });
  }
}
