/**
 * One page-script call as every runner action makes it: the tab's ref floor added, the page's
 * own failures turned into results, and Stop carried into the page.
 *
 * Invariants:
 * - Every call carries `ref_floor` (the highest ref this tab has shown), so a new document in the
 *   tab never hands out a number the model already saw for another element.
 * - BiDi failures are told apart by their error code, never by message text: "no such frame"
 *   on the tab is TabGoneError, on a frame a result saying the frame is gone.
 * - Stop (the signal) abandons the BiDi command and tells the page to end its waits, so a 60 s
 *   wait_for_stable does not go on in Firefox after the caller has moved on.
 */

import { TabGoneError } from "../browser/tab-contexts.js";
import { SEARCHING_ACTIONS } from "../tools/action-sets.js";
import { bidiCode, isFatal, isRecord } from "./page-result.js";
import { type PageScriptChannel, PageScriptError } from "./page-script-channel.js";
import type { PlainValue } from "./remote-value.js";

export interface PageCallOptions {
  /** Keep DOM nodes of the result as ElementHandles (an upload's file input). */
  keepNodes?: boolean;
  signal?: AbortSignal;
}

export class PageCaller {
  readonly #channel: PageScriptChannel;
  /** Highest ref each tab has shown the model. */
  readonly #refFloor = new Map<string, number>();

  constructor(channel: PageScriptChannel) {
    this.#channel = channel;
  }

  get channel(): PageScriptChannel {
    return this.#channel;
  }

  /** Runs `action` in `context` (the tab or one of its frames) and answers the page's result. */
  async call(
    tabId: string,
    context: string,
    action: string,
    params: Record<string, unknown>,
    opts: PageCallOptions = {},
  ): Promise<PlainValue> {
    const floor = this.#refFloor.get(tabId);
    let answer: PlainValue;
    try {
      answer = await this.#channel.call(
        context,
        action,
        floor === undefined ? params : { ...params, ref_floor: floor },
        {
          probeShadowRoots: SEARCHING_ACTIONS.has(action),
          ...(opts.keepNodes ? { keepNodes: true } : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
        },
      );
    } catch (error) {
      if (bidiCode(error) === "aborted") {
        // The command is abandoned here, but its promise still runs in the page: end it there.
        void this.#channel.cancelWaits(context).catch(() => {});
        throw error;
      }
      if (isFatal(error)) throw error;
      if (error instanceof PageScriptError) return { success: false, error: error.message };
      if (bidiCode(error) === "no such frame") {
        if (context === tabId)
          throw new TabGoneError(`Tab ${tabId} is closed; list the tabs and pick another.`, { cause: error });
        return {
          success: false,
          error: "That frame is gone (it navigated or was removed); read the tree again.",
        };
      }
      return {
        success: false,
        error: `The page changed while ${action} ran (${(error as Error).message}); read the tree again and retry.`,
      };
    }
    this.#noteRefs(tabId, answer);
    return answer;
  }

  #noteRefs(tabId: string, answer: PlainValue): void {
    if (!isRecord(answer) || !isRecord(answer.meta)) return;
    const last = answer.meta.last_ref;
    if (typeof last === "number" && last > (this.#refFloor.get(tabId) ?? 0)) this.#refFloor.set(tabId, last);
  }
}
