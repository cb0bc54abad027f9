/**
 * Page dialogs (alert / confirm / prompt / beforeunload), answered as soon as they open and
 * recorded so the model is told what the page asked and what was answered.
 *
 * Invariants:
 * - No dialog is ever left blocking: every `browsingContext.userPromptOpened` gets a
 *   `handleUserPrompt` right away (a failure to answer is recorded, not thrown).
 * - Policy: alerts and beforeunload are accepted; confirm and prompt follow `DialogPolicy`
 *   (default accept, prompt answered with its default value). The model acted on purpose, and
 *   a page's "are you sure?" is part of the action it chose; Ask mode never acts, so never
 *   reaches a confirm through its own clicks.
 * - Records are kept per browsing context until taken; `take` hands them over exactly once.
 * - `answerOnlyIn` narrows which contexts' dialogs are answered (the companion: only a tab with a
 *   page action in flight, so a dialog the person opens in their own Firefox stays theirs).
 * - Only dialogs of the port's own contexts (its BrowsingContextTree's) are seen: another isolated
 *   session's dialogs are that session's to answer and record.
 */
import type { BidiClient } from "@webbrain/bidi";
import type { BrowsingContext } from "./browsing-context.js";
import type { OpenPrompt } from "./browsing-context-state.js";
import type { BrowsingContextTree } from "./browsing-context-tree.js";

export interface DialogRecord {
  /** Browsing context the dialog opened in. */
  context: string;
  type: "alert" | "confirm" | "prompt" | "beforeunload";
  message: string;
  /** What we answered. */
  answer: "accepted" | "dismissed" | "failed";
  /** Text entered into a prompt. */
  text?: string;
  /** Why answering failed, when it did. */
  error?: string;
}

export interface DialogPolicy {
  confirm: "accept" | "dismiss";
  prompt: "accept" | "dismiss";
  /** Text for accepted prompts; default: the prompt's own default value. */
  promptText?: string;
}

export const DEFAULT_DIALOG_POLICY: DialogPolicy = { confirm: "accept", prompt: "accept" };

/** How long answering one dialog may take before it is recorded as failed. */
const HANDLE_PROMPT_TIMEOUT_MS = 5_000;

export class DialogHandler {
  readonly #client: BidiClient;
  readonly #records: DialogRecord[] = [];
  #policy: DialogPolicy;
  #inFlight = new Set<Promise<void>>();
  #answersIn: (context: string) => boolean = () => true;

  /** Listens to the tree's dialogs from now on, until the tree is disposed. */
  constructor(client: BidiClient, tree: BrowsingContextTree, policy: DialogPolicy = DEFAULT_DIALOG_POLICY) {
    this.#client = client;
    this.#policy = policy;
    tree.on("prompt", (context, prompt) => {
      if (!this.#answersIn(context.id)) return;
      const task = this.#answer(context, prompt).finally(() => this.#inFlight.delete(task));
      this.#inFlight.add(task);
    });
  }

  setPolicy(policy: DialogPolicy): void {
    this.#policy = policy;
  }

  /** Answers (and records) only dialogs of the contexts `filter` accepts; others are left open. */
  answerOnlyIn(filter: (context: string) => boolean): void {
    this.#answersIn = filter;
  }

  /** Resolves once every dialog opened so far has been answered (or failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.#inFlight]);
  }

  /** Whether any dialog is recorded and not yet taken. */
  get hasRecords(): boolean {
    return this.#records.length > 0;
  }

  /**
   * Whether a beforeunload prompt of one of these contexts was accepted and not yet taken: the
   * page is being left, though its navigation starts only after the answer.
   */
  leaveAccepted(contexts: ReadonlySet<string>): boolean {
    return this.#records.some(
      (record) =>
        record.type === "beforeunload" && record.answer === "accepted" && contexts.has(record.context),
    );
  }

  /** Hands over (and forgets) the records of these contexts. */
  take(contexts: ReadonlySet<string>): DialogRecord[] {
    const taken: DialogRecord[] = [];
    for (let i = 0; i < this.#records.length; ) {
      const record = this.#records[i]!;
      if (contexts.has(record.context)) {
        taken.push(record);
        this.#records.splice(i, 1);
      } else {
        i++;
      }
    }
    return taken;
  }

  async #answer(context: BrowsingContext, prompt: OpenPrompt): Promise<void> {
    const type = prompt.type;
    const accept =
      type === "confirm"
        ? this.#policy.confirm === "accept"
        : type === "prompt"
          ? this.#policy.prompt === "accept"
          : true;
    const text =
      type === "prompt" && accept ? (this.#policy.promptText ?? prompt.defaultValue ?? "") : undefined;
    const record: DialogRecord = {
      context: context.id,
      type,
      message: prompt.message,
      answer: accept ? "accepted" : "dismissed",
      ...(text !== undefined ? { text } : {}),
    };
    try {
      await this.#client.send(
        "browsingContext.handleUserPrompt",
        { context: context.id, accept, ...(text !== undefined ? { userText: text } : {}) },
        { timeoutMs: HANDLE_PROMPT_TIMEOUT_MS },
      );
    } catch (error) {
      // Firefox may have answered it already by its own prompt handler ("no such alert"): the
      // dialog is not blocking, which is what matters; say what we know.
      const message = error instanceof Error ? error.message : String(error);
      if ((error as { code?: unknown } | null)?.code !== "no such alert") {
        record.answer = "failed";
        record.error = message;
      } else if (prompt.handler === "dismiss") {
        record.answer = "dismissed";
      }
    }
    this.#records.push(record);
  }
}

/** One line per dialog for the model, e.g. `confirm "Delete the draft?" -> accepted`. */
export function describeDialogs(records: readonly DialogRecord[]): string[] {
  return records.map((record) => {
    const text = record.text !== undefined ? ` with "${record.text}"` : "";
    const error = record.error ? ` (${record.error})` : "";
    return `${record.type} ${JSON.stringify(record.message)} -> ${record.answer}${text}${error}`;
  });
}
