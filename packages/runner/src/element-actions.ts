/**
 * Page actions as the runner performs them: element actions through the page layer's resolve
 * path and trusted input, everything else straight through the page script.
 *
 * One element action is three steps: `handle(action, {...params, mode: "resolve"})` in the
 * sandbox answers a plan (points to press, keys to type) and a verify call; the plan is pressed
 * with `input.performActions`; the verify call reads back what the input did and answers the
 * action's result. The page decides *what* to press, Firefox presses it as a person would.
 *
 * Invariants:
 * - A result is plain JSON: element handles and the plan itself never reach the model.
 * - If the press navigated the tab, the verify call is skipped (its element is gone with the
 *   old document) and the result says the page navigated.
 * - Errors the page or model caused become `{success: false, error}`; a closed tab throws
 *   TabGoneError and a dead browser rethrows the connection error.
 */
import type { PageResult, UploadRequest } from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";
import type { DialogHandler } from "./dialog-handler.js";
import { frameOffset } from "./frame-offset.js";
import {
  PAGE_SANDBOX,
  type PageScriptChannel,
  PageScriptError,
  unwrapEvaluateResult,
} from "./page-script-channel.js";
import { isElementHandle, type PlainValue } from "./remote-value.js";
import { type TabContexts, TabGoneError } from "./tab-contexts.js";
import { type InputStep, invalidStepReason, performSteps } from "./trusted-input.js";

/** Actions the page layer can resolve to a plan of trusted input. */
export const TRUSTED_ACTIONS: ReadonlySet<string> = new Set([
  "click_ax",
  "type_ax",
  "set_field",
  "hover",
  "drag_drop",
  "click",
  "type_text",
  "press_keys",
  "iframe_click",
  "iframe_type",
]);

/** Fields of a resolve answer that are for the runner only. */
const RUNNER_ONLY_FIELDS = ["element", "plan", "verify"];

type Json = Record<string, PlainValue>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The model-facing result of a page answer: JSON, `success` always set, handles removed. */
export function toPageResult(value: PlainValue | Json): PageResult {
  if (!isRecord(value)) {
    return {
      success: false,
      error: `The page script answered ${JSON.stringify(value)} instead of a result object.`,
    };
  }
  const out: PageResult = { success: value.success === true };
  for (const [key, field] of Object.entries(value)) {
    if (key === "success" || RUNNER_ONLY_FIELDS.includes(key) || isElementHandle(field)) continue;
    out[key] = field as PageResult[string];
  }
  if (!out.success && typeof out.error !== "string") out.error = "The page action failed without saying why.";
  return out;
}

export interface LocatedElement {
  success: boolean;
  error?: string;
  element?: PlainValue;
  context: string;
}

export class ElementActions {
  readonly #client: BidiClient;
  readonly #channel: PageScriptChannel;
  readonly #tabs: TabContexts;
  readonly #dialogs: DialogHandler;

  constructor(client: BidiClient, channel: PageScriptChannel, tabs: TabContexts, dialogs: DialogHandler) {
    this.#client = client;
    this.#channel = channel;
    this.#tabs = tabs;
    this.#dialogs = dialogs;
  }

  async run(tabId: string, action: string, params: Record<string, unknown>): Promise<PageResult> {
    if (!TRUSTED_ACTIONS.has(action)) return toPageResult(await this.#call(tabId, tabId, action, params));
    return this.#pressAndVerify(tabId, tabId, action, params);
  }

  /** The element an upload targets: a ref from the tree (resolved by the page) or a selector. */
  async locate(tabId: string, request: UploadRequest): Promise<LocatedElement> {
    if (request.ref_id !== undefined) {
      const resolved = await this.#call(tabId, tabId, "click_ax", {
        ref_id: request.ref_id,
        mode: "resolve",
      });
      if (!isRecord(resolved) || resolved.success !== true)
        return { ...toPageResult(resolved), context: tabId };
      return { success: true, element: resolved.element ?? null, context: tabId };
    }
    if (request.selector) {
      const found = await this.#channel.callWith(tabId, "(selector) => document.querySelector(selector)", [
        { type: "string", value: request.selector },
      ]);
      if (!isElementHandle(found)) {
        return {
          success: false,
          error: `No element matches the selector ${request.selector}.`,
          context: tabId,
        };
      }
      return { success: true, element: found, context: tabId };
    }
    return {
      success: false,
      error: "Say which file input: pass ref_id (from the tree) or selector.",
      context: tabId,
    };
  }

  async #pressAndVerify(
    tabId: string,
    context: string,
    action: string,
    params: Record<string, unknown>,
  ): Promise<PageResult> {
    const resolved = await this.#call(tabId, context, action, { ...params, mode: "resolve" });
    if (!isRecord(resolved) || resolved.success !== true || !Array.isArray(resolved.plan)) {
      return toPageResult(resolved);
    }
    const plan = resolved.plan as unknown[];
    const bad = plan.map(invalidStepReason).find((reason) => reason !== undefined);
    if (bad) return { success: false, error: `The page layer sent a plan the runner cannot press (${bad}).` };
    const urlBefore = await this.#tabs.url(tabId);
    const offset =
      context === tabId
        ? { x: 0, y: 0 }
        : await frameOffset(this.#client, await this.#tabs.frames(tabId), context);
    try {
      await performSteps(this.#client, tabId, plan as InputStep[], offset);
    } catch (error) {
      if (isFatal(error)) throw error;
      return { success: false, error: `Firefox refused the trusted input: ${(error as Error).message}` };
    }
    await this.#dialogs.settled();
    const verify = resolved.verify;
    const urlAfter = await this.#tabs.url(tabId);
    if (urlAfter !== urlBefore) {
      return { ...toPageResult(resolved), navigated: true, url: urlAfter };
    }
    if (!isRecord(verify) || typeof verify.action !== "string") return toPageResult(resolved);
    return toPageResult(
      await this.#call(tabId, context, verify.action, isRecord(verify.params) ? verify.params : {}),
    );
  }

  /** One page-script call, with BiDi failures turned into results or typed errors. */
  async #call(tabId: string, context: string, action: string, params: unknown): Promise<PlainValue> {
    try {
      return await this.#channel.call(context, action, params);
    } catch (error) {
      if (isFatal(error)) throw error;
      if (error instanceof PageScriptError) return { success: false, error: error.message };
      const message = (error as Error).message;
      if (/no such frame/i.test(message)) {
        if (context === tabId)
          throw new TabGoneError(`Tab ${tabId} is closed; list the tabs and pick another.`);
        return {
          success: false,
          error: "That frame is gone (it navigated or was removed); read the tree again.",
        };
      }
      return {
        success: false,
        error: `The page changed while ${action} ran (${message}); read the tree again and retry.`,
      };
    }
  }
}

/** Errors that mean the browser or connection is gone: never turned into a result. */
function isFatal(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "connection closed" || error instanceof TabGoneError;
}

export { PAGE_SANDBOX, unwrapEvaluateResult };
