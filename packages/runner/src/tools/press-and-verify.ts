/**
 * An element action as the runner performs it: resolve in the page, press with trusted input,
 * verify in the page.
 *
 * `handle(action, {...params, mode: "resolve"})` in the sandbox answers, in its runner part, a
 * plan (points to press, keys to type) and a verify call; the plan is pressed with
 * `input.performActions`; the verify call reads back what the input did. The details of every
 * answer (the resolve's target, the verify's effect) make the result, in the order they came. A verify call may itself answer a new plan (a combobox:
 * open it, then choose the option), so this repeats up to MAX_PLAN_ROUNDS times. The page decides
 * *what* to press, Firefox presses it as a person would.
 *
 * Invariants:
 * - A trusted action's result says `trusted: true`; plans and handles never reach the model.
 * - If the press started a navigation of the tab, the verify call is skipped (its element is gone
 *   with the old document) and the result says the page navigated; so too when the press was
 *   answered by an accepted beforeunload prompt, whose navigation starts after the answer. A
 *   navigation that turned into a download is none: the click is verified as usual.
 * - A click the page says followed a link (`runner.follows_link`, @webbrain/page link-follow.ts) whose
 *   navigation had not started when it was read back waits for that start (bounded): a download
 *   link's download begins only then, and belongs in this click's result.
 * - Stop (the signal) is checked before every round and every step: once it fires nothing more
 *   is pressed, and the action rejects with the Stop error.
 */
import { FOLLOW_START_TIMEOUT_MS, type PageResult } from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";
import type { JsonObject, PageRunnerData } from "@webbrain/protocol";
import type { DialogHandler } from "../browser/dialog-handler.js";
import type { NavigationEvents } from "../browser/navigation-watch.js";
import type { PageCaller } from "../port/page-caller.js";
import { isFatal, isRecord, toPageResult } from "../port/page-result.js";
import type { PlainValue } from "../port/remote-value.js";
import { throwIfStopped } from "../port/stop-signal.js";
import { type InputStep, invalidStepReason, performSteps } from "./trusted-input.js";

/** How long a press that navigated waits for the new document to load before answering. */
const NAVIGATION_SETTLE_TIMEOUT_MS = 10_000;

/** How long after an accepted beforeunload prompt the navigation it let through may take to start. */
const LEAVE_START_TIMEOUT_MS = 3_000;

/** Resolve -> press -> verify rounds one action may take (a combobox needs two). */
const MAX_PLAN_ROUNDS = 4;

/** The runner part of a successful page answer, if it has one. */
function runnerOf(answer: PlainValue): PageRunnerData | undefined {
  return isRecord(answer) && answer.success === true && isRecord(answer.runner)
    ? (answer.runner as PageRunnerData)
    : undefined;
}

/** The details of a page answer (success or failure), or none. */
function detailsOf(answer: PlainValue): JsonObject {
  return isRecord(answer) && isRecord(answer.details) ? (answer.details as JsonObject) : {};
}

/**
 * The result of the last answer after the earlier ones' details: a success carries them all; a
 * failure says what failed after what was done (`success`, the details so far, then its own).
 */
function resultAfter(earlier: JsonObject, answer: PlainValue): PageResult {
  const last = toPageResult(answer);
  if (!isRecord(answer)) return last;
  // `success` leads, as in every result; the details so far keep their place before the failure's.
  if (!last.success) return Object.assign({ success: false }, earlier, last);
  return toPageResult({ ...(answer as object), details: { ...earlier, ...detailsOf(answer) } });
}

export class PlanPresser {
  readonly #client: BidiClient;
  readonly #caller: PageCaller;
  readonly #dialogs: DialogHandler;
  readonly #navigations: NavigationEvents;

  constructor(client: BidiClient, caller: PageCaller, dialogs: DialogHandler, navigations: NavigationEvents) {
    this.#client = client;
    this.#caller = caller;
    this.#dialogs = dialogs;
    this.#navigations = navigations;
  }

  async pressAndVerify(
    tabId: string,
    context: string,
    action: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const call = signal ? { signal } : {};
    let answer = await this.#caller.call(tabId, context, action, { ...params, mode: "resolve" }, call);
    /** The details of every answer so far, in order: what the result will say. */
    let merged: JsonObject = {};
    for (let round = 0; round < MAX_PLAN_ROUNDS; round++) {
      const plan: unknown = runnerOf(answer)?.plan;
      if (!Array.isArray(plan)) return resultAfter(merged, answer);
      const bad = plan.map(invalidStepReason).find((reason) => reason !== undefined);
      if (bad)
        return { success: false, error: `The page layer sent a plan the runner cannot press (${bad}).` };
      merged = { ...merged, ...detailsOf(answer) };
      const done = (): PageResult => ({ success: true, ...merged });
      throwIfStopped(signal, action);
      // A document navigation the press started (link, form submit) is seen as a BiDi event,
      // which costs no round trip; `navigationStarted` does not fire for fragments/pushState.
      const watch = this.#navigations.watch(tabId, context);
      try {
        // Pointer coordinates are relative to the viewport of the context the actions are
        // performed in, so a frame's own plan is pressed in the frame's context, unshifted.
        await performSteps(this.#client, context, plan as InputStep[], signal);
      } catch (error) {
        watch.stop();
        if (isFatal(error)) throw error;
        return { success: false, error: `Firefox refused the trusted input: ${(error as Error).message}` };
      }
      await this.#dialogs.settled();
      // An accepted "leave this page?" (beforeunload) prompt means the page is being left, but
      // Firefox starts the navigation only once the prompt is answered: wait for it (bounded)
      // instead of verifying in the document that is going away.
      if (!watch.started() && this.#dialogs.leaveAccepted(new Set([tabId, context])))
        await watch.whenStarted(LEAVE_START_TIMEOUT_MS, signal);
      // The next call would race the new document: wait for it to load (bounded). A download
      // link's navigation leaves the document in place: then the click is read back there.
      const leftFor = async (): Promise<PageResult | undefined> => {
        const url = await watch.loaded(NAVIGATION_SETTLE_TIMEOUT_MS, signal);
        return watch.becameDownload() ? undefined : { ...done(), trusted: true, navigated: true, url };
      };
      if (watch.started()) {
        const left = await leftFor();
        if (left) return left;
      }
      const verify: unknown = runnerOf(answer)?.verify;
      if (!isRecord(verify) || typeof verify.action !== "string") {
        watch.stop();
        // Without a verify call (every plan of @webbrain/page has one; another page script may
        // not) the resolve answer describes the page *before* the input: drop its `focused`,
        // which the input may have changed, rather than mislead.
        const { focused: _before, ...rest } = done();
        return { ...rest, trusted: true };
      }
      try {
        answer = await this.#caller.call(
          tabId,
          context,
          verify.action,
          isRecord(verify.params) ? verify.params : {},
          call,
        );
        // The page was asked to unload while we read it back: its "leave?" prompt is being
        // answered and the navigation starts after that. Report that navigation, not this read.
        if (runnerOf(answer)?.leaving === true && (await watch.whenStarted(LEAVE_START_TIMEOUT_MS, signal))) {
          const url = await watch.loaded(NAVIGATION_SETTLE_TIMEOUT_MS, signal);
          return { ...done(), trusted: true, navigated: true, url };
        }
        // The click followed a link whose navigation (or download) had not started by the read
        // back: Firefox starts it a moment later. Wait for it (bounded), so a download is in this
        // click's result and the next call does not race the new document.
        if (runnerOf(answer)?.follows_link === "document" && !watch.started() && !watch.becameDownload())
          await watch.whenStarted(FOLLOW_START_TIMEOUT_MS, signal);
        // A navigation that started after the press, while the page was read back (on a loaded
        // machine Firefox's event comes that late), is followed as one seen before the read: to
        // its load, or to the download it turns into. Checked only before the read, it was
        // dropped, and a download link whose response came late lost its download.
        if (watch.started()) {
          const left = await leftFor();
          if (left) return left;
        }
      } finally {
        watch.stop();
      }
      if (isRecord(answer) && !Array.isArray(runnerOf(answer)?.plan)) {
        return { ...resultAfter(merged, answer), trusted: true };
      }
    }
    return {
      success: false,
      error: `${action} needed more than ${MAX_PLAN_ROUNDS} rounds of input; re-read the tree.`,
    };
  }
}
