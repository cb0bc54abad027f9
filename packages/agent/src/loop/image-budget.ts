/**
 * The image budget of a conversation (spec 000: image pruning, screenshots after actions).
 *
 * Images are the most expensive thing a vision model reads, so three bounds hold:
 * - `keepImages`: only the newest images stay in what is sent (spec 000: the last 4); older ones
 *   become a one-line placeholder, so the model knows something was there.
 * - `maxImageBytes`: the images kept may together weigh at most this much (decoded bytes); a
 *   newer image is kept before an older one, and one newest image is always kept, whatever its
 *   size, so the model sees the page as it is now.
 * - `maxImagesPerRun`: screenshots one task may take (the screenshot tool, screenshots after
 *   actions, verify_form's view); past it the screenshot tool answers that the budget is spent
 *   and actions go on without one.
 *
 * Browser-free and pure: the agent applies it before every model call (context-manager.ts).
 */
import type { Message, TextContent } from "@mariozechner/pi-ai";

export interface ImageBudget {
  keepImages: number;
  maxImageBytes: number;
  maxImagesPerRun: number;
}

export const DEFAULT_IMAGE_BUDGET: ImageBudget = {
  keepImages: 4,
  /** Four full-HD JPEG/PNG viewport captures fit; a fifth heavy one pushes the oldest out. */
  maxImageBytes: 4 * 1024 * 1024,
  maxImagesPerRun: 40,
};

export const PRUNED_IMAGE_TEXT = "[older screenshot removed]";

/** Decoded size of base64 data, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/**
 * Replace every image outside the budget (count, then bytes, newest first) with a placeholder.
 * Returns new messages; assistant messages are never touched.
 */
export function pruneImagesToBudget(
  messages: readonly Message[],
  budget: Pick<ImageBudget, "keepImages" | "maxImageBytes"> = DEFAULT_IMAGE_BUDGET,
): Message[] {
  let kept = 0;
  let bytes = 0;
  const out: Message[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (message.role === "assistant" || typeof message.content === "string") {
      out.push(message);
      continue;
    }
    const content = [...message.content].reverse().map((block) => {
      if (block.type !== "image") return block;
      const size = base64Bytes(block.data);
      const fits = kept < budget.keepImages && (kept === 0 || bytes + size <= budget.maxImageBytes);
      if (!fits) return { type: "text", text: PRUNED_IMAGE_TEXT } as TextContent;
      kept++;
      bytes += size;
      return block;
    });
    out.push({ ...message, content: content.reverse() } as Message);
  }
  return out.reverse();
}

/** Screenshots taken during one task, against `maxImagesPerRun`. */
export class RunImageCounter {
  private taken = 0;

  constructor(readonly limit: number = DEFAULT_IMAGE_BUDGET.maxImagesPerRun) {}

  get count(): number {
    return this.taken;
  }

  get spent(): boolean {
    return this.taken >= this.limit;
  }

  /** Take one from the budget; false when it is spent. */
  take(): boolean {
    if (this.taken >= this.limit) return false;
    this.taken++;
    return true;
  }

  spentMessage(): string {
    return `The screenshot budget of this task is spent (${this.limit} images). Read the page with get_accessibility_tree or read_page instead.`;
  }
}
