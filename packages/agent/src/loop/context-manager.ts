/**
 * Context management (spec 000): keep a long run inside the model's context.
 *
 * - Trim once a conversation passes TRIM_AT_MESSAGES messages or its context window's share of
 *   characters (trimAtChars: TRIM_AT_CHARS at the default 32,000 tokens):
 *   the middle of the history is replaced by an LLM-written summary, folded into the first
 *   user message (the task), and the newest steps are kept verbatim.
 * - Emergency trim after a context-overflow error keeps far less, then the call is retried.
 * - Only the newest KEEP_IMAGES images, within a byte budget, stay; older ones become a
 *   one-line placeholder (image-budget.ts).
 *
 * Invariants: the task (first user message) is never dropped; the kept tail starts at an
 * assistant message, so no tool result loses the tool call it answers and roles alternate;
 * if the summary call fails, a mechanical summary (the tools called and their outcomes) is
 * used instead, so trimming never fails a run.
 */
import type { Message, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import { sliceKeepingWrappers } from "../guards/untrusted.js";
import { DEFAULT_CONTEXT_WINDOW } from "../providers/provider-config.js";
import { DEFAULT_IMAGE_BUDGET, type ImageBudget, pruneImagesToBudget } from "./image-budget.js";

export const TRIM_AT_MESSAGES = 50;
export const TRIM_AT_CHARS = 80_000;
export const KEEP_IMAGES = DEFAULT_IMAGE_BUDGET.keepImages;
/** Messages kept verbatim after a normal trim, and after an emergency trim. */
export const KEEP_TAIL_MESSAGES = 16;
export const EMERGENCY_KEEP_TAIL_MESSAGES = 4;
/** The summarizer reads at most this much of the history. */
export const SUMMARY_INPUT_CHARS = 24_000;
/** An image counts as this many characters toward TRIM_AT_CHARS (its base64 is not text). */
const IMAGE_CHAR_COST = 1_000;

export const SUMMARY_HEADER = "[Summary of earlier steps]";

export type Summarizer = (historyText: string) => Promise<string>;

function blockText(block: { type: string; text?: string }): string {
  return block.type === "text" ? (block.text ?? "") : "";
}

export function messageChars(message: Message): number {
  if (typeof message.content === "string") return message.content.length;
  let total = 0;
  for (const block of message.content) {
    if (block.type === "text") total += block.text.length;
    else if (block.type === "image") total += IMAGE_CHAR_COST;
    else if (block.type === "toolCall") total += block.name.length + JSON.stringify(block.arguments).length;
    else if (block.type === "thinking") total += block.thinking.length;
  }
  return total;
}

export function historyChars(messages: Message[]): number {
  return messages.reduce((sum, message) => sum + messageChars(message), 0);
}

/**
 * Characters of history a context window holds before trimming: 2.5 per token leaves room for
 * the system prompt, the tool list and the answer (about 4 characters make a token in English).
 * The default window gives TRIM_AT_CHARS.
 */
export function trimAtChars(contextWindow: number = DEFAULT_CONTEXT_WINDOW): number {
  return Math.round(contextWindow * 2.5);
}

export function needsTrim(messages: Message[], maxChars: number = TRIM_AT_CHARS): boolean {
  return messages.length > TRIM_AT_MESSAGES || historyChars(messages) > maxChars;
}

/**
 * Replace images outside the budget with a placeholder (image-budget.ts): all but the newest
 * `keep`, and past the byte budget. Returns new messages.
 */
export function pruneImages(
  messages: Message[],
  keep: number | Pick<ImageBudget, "keepImages" | "maxImageBytes"> = DEFAULT_IMAGE_BUDGET,
): Message[] {
  const budget = typeof keep === "number" ? { ...DEFAULT_IMAGE_BUDGET, keepImages: keep } : keep;
  return pruneImagesToBudget(messages, budget);
}

/** The history as plain text for the summarizer (tool results shortened). */
export function historyAsText(messages: Message[], maxChars = SUMMARY_INPUT_CHARS): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      const text =
        typeof message.content === "string" ? message.content : message.content.map(blockText).join("");
      lines.push(`USER: ${text}`);
    } else if (message.role === "assistant") {
      for (const block of message.content) {
        if (block.type === "text" && block.text) lines.push(`AGENT: ${block.text}`);
        if (block.type === "toolCall") lines.push(`CALL ${block.name} ${JSON.stringify(block.arguments)}`);
      }
    } else {
      const text = message.content.map(blockText).join("");
      lines.push(
        `RESULT ${message.toolName}${message.isError ? " (error)" : ""}: ${sliceKeepingWrappers(text, 0, 400)}`,
      );
    }
  }
  const text = lines.join("\n");
  // Keep the end: the newest steps matter most for what comes next.
  return text.length > maxChars ? `...\n${sliceKeepingWrappers(text, text.length - maxChars)}` : text;
}

/** A summary without a model: which tools ran and how they ended. */
export function mechanicalSummary(messages: Message[]): string {
  const outcomes = messages
    .filter((message): message is ToolResultMessage => message.role === "toolResult")
    .map((message) => `${message.toolName}${message.isError ? " (failed)" : ""}`);
  return `Earlier the agent ran ${outcomes.length} tool calls: ${outcomes.join(", ") || "none"}. Re-read the page before relying on earlier observations.`;
}

/** Index where the kept tail starts: at most `keep` messages, starting at an assistant message. */
function tailStart(messages: Message[], keep: number): number {
  let start = Math.max(1, messages.length - keep);
  while (start < messages.length && messages[start]?.role !== "assistant") start++;
  return start;
}

export interface TrimResult {
  messages: Message[];
  /** How many messages the summary replaced (0: nothing to trim). */
  summarized: number;
  usedModel: boolean;
}

/**
 * Fold the middle of the history into a summary inside the first user message. The first
 * message must be the task (a user message).
 */
export async function trimHistory(
  messages: Message[],
  summarize: Summarizer,
  keep = KEEP_TAIL_MESSAGES,
): Promise<TrimResult> {
  const first = messages[0];
  if (first?.role !== "user") return { messages, summarized: 0, usedModel: false };
  const start = tailStart(messages, keep);
  const middle = messages.slice(1, start);
  if (middle.length === 0) return { messages, summarized: 0, usedModel: false };
  let summary: string;
  let usedModel = true;
  try {
    summary = (await summarize(historyAsText(middle))).trim();
    if (!summary) throw new Error("empty summary");
  } catch {
    summary = mechanicalSummary(middle);
    usedModel = false;
  }
  const task = firstUserWithSummary(first, summary);
  return { messages: [task, ...messages.slice(start)], summarized: middle.length, usedModel };
}

function firstUserWithSummary(first: UserMessage, summary: string): UserMessage {
  const addition = `\n\n${SUMMARY_HEADER}\n${summary}`;
  if (typeof first.content === "string") {
    const base = first.content.split(`\n\n${SUMMARY_HEADER}`)[0] ?? first.content;
    return { ...first, content: base + addition };
  }
  // Drop an older summary block, keep the task text and its screenshot.
  const content = first.content.filter(
    (block) => !(block.type === "text" && block.text.startsWith(`\n\n${SUMMARY_HEADER}`)),
  );
  return { ...first, content: [...content, { type: "text", text: addition }] };
}
