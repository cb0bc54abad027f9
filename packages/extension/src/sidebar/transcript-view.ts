/**
 * Renders a tab's conversation into the sidebar: committed transcript items, and the live part
 * of a running run (open tool calls, a pending plan or permission prompt, streamed text).
 *
 * Invariant: the live part is rebuilt from one RunSnapshot and then patched by events whose
 * sequence number is newer than the last one applied (`lastSeq`); an event with an older or
 * equal number is dropped. That, and committed items replacing the streamed text they came
 * from, is why a reconnect shows every character exactly once.
 */

import { t } from "../shared/i18n.js";
import type { JournalEntry, OpenToolCall, PendingPrompt, RunSnapshot } from "../shared/run-events.js";
import type { VerboseLevel } from "../shared/settings.js";
import type { TranscriptItem } from "../shared/transcript.js";
import { renderMarkdown } from "./markdown.js";
import { ReplyNavigator } from "./reply-navigator.js";

/** Re-rendering streamed Markdown on every delta is wasteful; once per frame is enough. */
const STREAM_RENDER_INTERVAL_MS = 50;
const ARGS_PREVIEW_CHARS = 80;

export interface ViewCallbacks {
  /** Called inside the click handler (a browser permission may only be requested there). */
  /** `note`: what the person wrote in the prompt's text field (take-over card), else "". */
  answerPrompt(promptId: string, choiceId: string, prompt: PendingPrompt, note: string): void;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function argsPreview(args: string): string {
  const flat = args.replace(/\s+/g, " ");
  return flat.length > ARGS_PREVIEW_CHARS ? `${flat.slice(0, ARGS_PREVIEW_CHARS)}…` : flat;
}

const MODE_LABELS = { ask: "modeAsk", act: "modeAct", dev: "modeDev" } as const;

export class TranscriptView {
  private runId: string | undefined;
  private lastSeq = 0;
  private streamText = "";
  private streamDropped = 0;
  private streamNode: HTMLElement | undefined;
  private renderTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly openTools = new Map<string, HTMLElement>();
  private promptNode: HTMLElement | undefined;
  verbose: VerboseLevel = "normal";
  private readonly navigator: ReplyNavigator | undefined;

  constructor(
    private readonly list: HTMLOListElement,
    private readonly live: HTMLElement,
    private readonly scroller: HTMLElement,
    private readonly callbacks: ViewCallbacks,
    /** The floating navigation for long answers (reading first). */
    nav?: HTMLElement,
  ) {
    this.navigator = nav ? new ReplyNavigator(scroller, list, nav) : undefined;
  }

  /** Replace everything with a tab's transcript and (if running) its live run. */
  reset(items: readonly TranscriptItem[], run: RunSnapshot | undefined): void {
    this.list.replaceChildren(...items.map((item) => this.itemNode(item)));
    this.clearLive();
    this.runId = run?.runId;
    this.lastSeq = run?.seq ?? 0;
    if (run?.status === "running") {
      for (const call of run.openTools) this.addOpenTool(call);
      if (run.prompt) this.showPrompt(run.prompt);
      this.streamText = run.streamText;
      this.streamDropped = run.streamTextDropped;
      if (this.streamText !== "") this.renderStream();
    }
    this.navigator?.markRestored();
    this.navigator?.toNewest();
    this.scrollToEnd();
  }

  get isEmpty(): boolean {
    return this.list.childElementCount === 0 && this.live.childElementCount === 0;
  }

  /** Apply one live event; returns false when it was a duplicate and was dropped. */
  apply(entry: JournalEntry): boolean {
    const event = entry.event;
    if (event.kind === "run_start") {
      if (event.runId === this.runId) return false;
      this.clearLive();
      this.runId = event.runId;
      this.lastSeq = entry.seq;
      return true;
    }
    if (entry.seq <= this.lastSeq) return false;
    this.lastSeq = entry.seq;
    switch (event.kind) {
      case "item":
        if (event.item.kind === "assistant") this.clearStream();
        if (event.item.kind === "tool") {
          this.openTools.get(event.item.callId)?.remove();
          this.openTools.delete(event.item.callId);
        }
        {
          const node = this.itemNode(event.item);
          this.list.append(node);
          if (event.item.kind === "assistant")
            this.navigator?.answerAdded(node, `${this.runId}-${entry.seq}`);
        }
        break;
      case "text_delta":
        this.streamText += event.text;
        this.scheduleStreamRender();
        break;
      case "text_reset":
        this.clearStream();
        break;
      case "tool_start":
        this.addOpenTool(event.call);
        break;
      case "prompt":
        this.showPrompt(event.prompt);
        break;
      case "prompt_closed":
        if (this.promptNode?.dataset.promptId === event.promptId) {
          this.promptNode.remove();
          this.promptNode = undefined;
        }
        break;
      case "run_end":
        this.clearLive();
        break;
      case "status":
        break;
    }
    this.scrollToEnd();
    return true;
  }

  private clearLive(): void {
    this.clearStream();
    this.live.replaceChildren();
    this.openTools.clear();
    this.promptNode = undefined;
  }

  private clearStream(): void {
    this.streamText = "";
    this.streamDropped = 0;
    if (this.renderTimer !== undefined) clearTimeout(this.renderTimer);
    this.renderTimer = undefined;
    this.streamNode?.remove();
    this.streamNode = undefined;
  }

  private scheduleStreamRender(): void {
    if (this.renderTimer !== undefined) return;
    this.renderTimer = setTimeout(() => {
      this.renderTimer = undefined;
      this.renderStream();
    }, STREAM_RENDER_INTERVAL_MS);
  }

  private renderStream(): void {
    if (this.streamNode === undefined) {
      this.streamNode = el("div", "msg assistant streaming");
      this.streamNode.setAttribute("aria-busy", "true");
      this.live.append(this.streamNode);
    }
    const prefix = this.streamDropped > 0 ? "…\n\n" : "";
    this.streamNode.replaceChildren(renderMarkdown(prefix + this.streamText));
    this.scrollToEnd();
  }

  private addOpenTool(call: OpenToolCall): void {
    const card = el("div", "tool running");
    const line = el("div", "tool-line");
    line.append(
      el("span", "tool-name", call.name),
      el("span", "tool-summary", argsPreview(call.args)),
      el("span", "tool-state", "…"),
    );
    line.lastElementChild?.setAttribute("aria-label", t("toolRunning"));
    card.append(line);
    this.openTools.set(call.callId, card);
    // Streamed text stays last, below the cards of the step that produced it.
    if (this.streamNode) this.live.insertBefore(card, this.streamNode);
    else this.live.append(card);
  }

  private showPrompt(prompt: PendingPrompt): void {
    this.promptNode?.remove();
    const box = el("div", "prompt");
    box.dataset.promptId = prompt.promptId;
    // An alert dialog is announced at once: the run is waiting on the person.
    box.setAttribute("role", "alertdialog");
    box.setAttribute("aria-label", prompt.title);
    box.append(el("h3", undefined, prompt.title), el("p", undefined, prompt.body));
    // The take-over card: what the person tells the model when they hand back.
    let note: HTMLTextAreaElement | undefined;
    if (prompt.note) {
      const label = el("label", "prompt-note", prompt.note.label);
      note = el("textarea");
      note.rows = 2;
      label.append(note);
      box.append(label);
    }
    const choices = el("div", "choices");
    prompt.choices.forEach((choice, index) => {
      const button = el("button", index === 0 ? "primary" : "secondary", choice.label);
      button.type = "button";
      button.addEventListener("click", () => {
        for (const b of choices.querySelectorAll("button")) b.disabled = true;
        if (note) note.disabled = true;
        this.callbacks.answerPrompt(prompt.promptId, choice.id, prompt, note?.value ?? "");
      });
      choices.append(button);
    });
    box.append(choices);
    this.promptNode = box;
    this.live.append(box);
  }

  private itemNode(item: TranscriptItem): HTMLLIElement {
    const li = el("li");
    switch (item.kind) {
      case "user": {
        li.className = "msg user";
        li.append(el("span", "mode-tag", t(MODE_LABELS[item.mode])), document.createTextNode(item.text));
        if (item.attachments?.length) li.append(el("span", "attached", `📎 ${item.attachments.join(", ")}`));
        if (item.offered?.length) li.append(el("span", "attached offered", `📤 ${item.offered.join(", ")}`));
        break;
      }
      case "assistant":
        li.className = "msg assistant";
        li.append(renderMarkdown(item.text));
        break;
      case "tool":
        li.append(this.toolCard(item));
        break;
      case "error":
        li.className = "error";
        li.setAttribute("role", "alert");
        li.textContent = item.text;
        break;
      case "notice":
        li.className = "notice";
        li.textContent = item.text;
        break;
    }
    return li;
  }

  private toolCard(item: Extract<TranscriptItem, { kind: "tool" }>): HTMLElement {
    const stateClass = item.success ? "ok" : "failed";
    const mark = el("span", "tool-state", item.success ? "✓" : "✗");
    mark.setAttribute("aria-label", item.success ? t("toolSucceeded") : t("toolFailed"));
    const summary = el("span", "tool-summary", item.summary || argsPreview(item.args));
    if (this.verbose === "normal") {
      const card = el("div", `tool ${stateClass}`);
      const line = el("div", "tool-line");
      line.append(el("span", "tool-name", item.name), summary, mark);
      card.append(line);
      return card;
    }
    const details = el("details", `tool ${stateClass}`);
    const head = el("summary");
    head.append(el("span", "tool-name", item.name), summary, mark);
    details.append(head, el("pre", "tool-detail", `arguments: ${item.args}\n\nresult: ${item.detail}`));
    return details;
  }

  private scrollToEnd(): void {
    // Reading first: while the person reads a long answer, new output does not move the panel.
    if (this.navigator && !this.navigator.following) {
      this.navigator.refresh();
      return;
    }
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.navigator?.refresh();
  }
}
