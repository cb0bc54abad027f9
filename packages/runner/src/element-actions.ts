/**
 * Page actions as the runner performs them: element actions through the page layer's resolve
 * path and trusted input, everything else straight through the page script.
 *
 * One element action is: `handle(action, {...params, mode: "resolve"})` in the sandbox answers
 * a plan (points to press, keys to type) and a verify call; the plan is pressed with
 * `input.performActions`; the verify call reads back what the input did. A verify call may
 * itself answer a new plan (a combobox: open it, then choose the option), so this repeats up to
 * MAX_PLAN_ROUNDS times. The page decides *what* to press, Firefox presses it as a person would.
 *
 * Invariants:
 * - A result is plain JSON: element handles, plans and the resolve bookkeeping never reach the
 *   model; a trusted action's result says `trusted: true`.
 * - Every call carries `ref_floor` (the highest ref this tab has shown), so a new document in
 *   the tab never hands out a number the model already saw for another element.
 * - If the press started a navigation of the tab, the verify call is skipped (its element is gone with the
 *   old document) and the result says the page navigated.
 * - Errors the page or model caused become `{success: false, error}`; a closed tab throws
 *   TabGoneError and a dead browser rethrows the connection error.
 */
import type { PageResult, UploadRequest } from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";
import { WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS } from "@webbrain/page/protocol";
import type { DialogHandler } from "./dialog-handler.js";
import { FrameTargets } from "./frame-targets.js";
import type { NetworkActivity } from "./network-activity.js";
import { type PageScriptChannel, PageScriptError } from "./page-script-channel.js";
import { fromRemoteValue, isElementHandle, type PlainValue } from "./remote-value.js";
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
]);

/** Actions that look for elements: closed shadow roots are exposed to the sandbox first. */
const SEARCHING_ACTIONS: ReadonlySet<string> = new Set([
  "get_accessibility_tree",
  "get_interactive_elements",
  "read_page",
  "click",
  "type_text",
  "wait_for_element",
  "extract_data",
  "get_shadow_dom",
]);

/** How long a press that navigated waits for the new document to load before answering. */
const NAVIGATION_SETTLE_TIMEOUT_MS = 10_000;

/** Resolve -> press -> verify rounds one action may take (a combobox needs two). */
const MAX_PLAN_ROUNDS = 4;

/** Fields of a resolve answer that are for the runner only. */
const RUNNER_ONLY_FIELDS = new Set(["element", "plan", "verify", "point", "mode", "ref_floor"]);

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
    if (key === "success" || RUNNER_ONLY_FIELDS.has(key) || isElementHandle(field)) continue;
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
  readonly #dialogs: DialogHandler;
  readonly #frames: FrameTargets;
  readonly #tabs: TabContexts;
  readonly #network: NetworkActivity;
  /** Highest ref each tab has shown the model. */
  readonly #refFloor = new Map<string, number>();

  constructor(
    client: BidiClient,
    channel: PageScriptChannel,
    tabs: TabContexts,
    dialogs: DialogHandler,
    network: NetworkActivity,
  ) {
    this.#client = client;
    this.#channel = channel;
    this.#dialogs = dialogs;
    this.#tabs = tabs;
    this.#network = network;
    this.#frames = new FrameTargets(channel, tabs);
  }

  async run(tabId: string, action: string, params: Record<string, unknown>): Promise<PageResult> {
    switch (action) {
      case "iframe_click":
      case "iframe_type":
        return this.#inFrame(tabId, action, params);
      case "iframe_read": {
        const inPage = toPageResult(await this.#call(tabId, tabId, action, params));
        return inPage.code === "cross_origin" ? this.#inFrame(tabId, action, params) : inPage;
      }
      case "promote_iframe": {
        const frame = await this.#frames.pick(tabId, params);
        return frame.success ? { success: true, url: frame.url } : frame;
      }
      case "execute_js":
        return this.#executeJs(tabId, params);
      case "wait_for_stable":
        return this.#waitForStable(tabId, params);
      case "resolve_resource_url":
        return this.#resourceUrl(tabId, params);
      default:
        if (TRUSTED_ACTIONS.has(action)) return this.#pressAndVerify(tabId, tabId, action, params);
        return toPageResult(await this.#call(tabId, tabId, action, params));
    }
  }

  /** The element an upload targets: a ref from the tree (resolved by the page) or a selector. */
  async locate(tabId: string, request: UploadRequest): Promise<LocatedElement> {
    if (request.ref_id !== undefined) {
      const resolved = await this.#call(
        tabId,
        tabId,
        "click_ax",
        { ref_id: request.ref_id, mode: "resolve" },
        { keepNodes: true },
      );
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
      error: "Say which element: pass ref_id (from the tree) or selector.",
      context: tabId,
    };
  }

  async #pressAndVerify(
    tabId: string,
    context: string,
    action: string,
    params: Record<string, unknown>,
  ): Promise<PageResult> {
    let answer = await this.#call(tabId, context, action, { ...params, mode: "resolve" });
    let merged: Json = {};
    for (let round = 0; round < MAX_PLAN_ROUNDS; round++) {
      if (!isRecord(answer) || answer.success !== true || !Array.isArray(answer.plan)) {
        return toPageResult(isRecord(answer) ? { ...merged, ...answer } : answer);
      }
      const plan = answer.plan as unknown[];
      const bad = plan.map(invalidStepReason).find((reason) => reason !== undefined);
      if (bad)
        return { success: false, error: `The page layer sent a plan the runner cannot press (${bad}).` };
      merged = { ...merged, ...answer };
      // A document navigation the press started (link, form submit) is seen as a BiDi event,
      // which costs no round trip; `navigationStarted` does not fire for fragments/pushState.
      const watch = this.#watchNavigation(tabId, context);
      try {
        // Pointer coordinates are relative to the viewport of the context the actions are
        // performed in, so a frame's own plan is pressed in the frame's context, unshifted.
        await performSteps(this.#client, context, plan as InputStep[]);
      } catch (error) {
        watch.stop();
        if (isFatal(error)) throw error;
        return { success: false, error: `Firefox refused the trusted input: ${(error as Error).message}` };
      }
      await this.#dialogs.settled();
      if (watch.started()) {
        // The next call would race the new document: wait for it to load (bounded).
        const url = await watch.loaded(NAVIGATION_SETTLE_TIMEOUT_MS);
        return { ...toPageResult(merged), trusted: true, navigated: true, url };
      }
      watch.stop();
      const verify = answer.verify;
      if (!isRecord(verify) || typeof verify.action !== "string") {
        // Without a verify call (every plan of @webbrain/page has one; another page script may
        // not) the resolve answer describes the page *before* the input: drop its `focused`,
        // which the input may have changed, rather than mislead.
        const { focused: _before, ...rest } = toPageResult(merged);
        return { ...rest, trusted: true };
      }
      answer = await this.#call(tabId, context, verify.action, isRecord(verify.params) ? verify.params : {});
      if (isRecord(answer) && !Array.isArray(answer.plan)) {
        return { ...toPageResult({ ...merged, ...answer }), trusted: true };
      }
    }
    return {
      success: false,
      error: `${action} needed more than ${MAX_PLAN_ROUNDS} rounds of input; re-read the tree.`,
    };
  }

  /**
   * Follows navigations of the tab (or the frame acted in) while input is pressed. BiDi events
   * cost no round trip; `navigationStarted` does not fire for fragments or pushState.
   */
  #watchNavigation(tabId: string, context: string) {
    const ours = (id: string) => id === context || id === tabId;
    let startedUrl: string | undefined;
    let loadedUrl: string | undefined;
    let onLoad: (() => void) | undefined;
    const removers = [
      this.#client.on("browsingContext.navigationStarted", (info) => {
        if (!ours(info.context)) return;
        startedUrl = info.url;
        loadedUrl = undefined;
      }),
      this.#client.on("browsingContext.load", (info) => {
        if (!ours(info.context) || startedUrl === undefined) return;
        loadedUrl = info.url;
        onLoad?.();
      }),
    ];
    const stop = () => {
      for (const remove of removers) remove();
    };
    return {
      stop,
      started: () => startedUrl !== undefined,
      /** The loaded URL, or the started one if the load takes longer than timeoutMs. */
      loaded: async (timeoutMs: number): Promise<string> => {
        if (loadedUrl === undefined) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, timeoutMs);
            onLoad = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        stop();
        return loadedUrl ?? startedUrl ?? "";
      },
    };
  }

  /** iframe_click / iframe_type / a cross-origin iframe_read, in the frame's own context. */
  async #inFrame(tabId: string, action: string, params: Record<string, unknown>): Promise<PageResult> {
    const frame = await this.#frames.pick(tabId, params);
    if (!frame.success) return frame;
    const context = String(frame.context);
    if (action === "iframe_read") {
      const read = toPageResult(
        await this.#call(tabId, context, "read_page", pickDefined(params, ["max_chars"])),
      );
      return { ...read, src: frame.url, via: "frame context" };
    }
    const target = pickDefined(params, ["selector", "text"]);
    if (params.matchIndex !== undefined) target.match_index = params.matchIndex;
    const pageAction = action === "iframe_click" ? "click" : "type_text";
    const result = await this.#pressAndVerify(tabId, context, pageAction, target);
    return { ...result, frame: frame.url };
  }

  /**
   * wait_for_stable: the page layer's quiet DOM, and no fetch/XHR in flight in the tab or its
   * frames (seen by Firefox, which page script cannot). Requests that finish may change the
   * DOM again, so the DOM check runs again after them, all within the one timeout.
   */
  async #waitForStable(tabId: string, params: Record<string, unknown>): Promise<PageResult> {
    const requested = Number(params.timeout_ms ?? params.timeout ?? WAIT_DEFAULT_TIMEOUT_MS);
    const timeoutMs =
      Number.isFinite(requested) && requested >= 0 && requested <= WAIT_MAX_TIMEOUT_MS
        ? requested
        : undefined;
    if (timeoutMs === undefined)
      return toPageResult(await this.#call(tabId, tabId, "wait_for_stable", params));
    const { timeout: _alias, ...rest } = params;
    const started = performance.now();
    let networkWaitMs = 0;
    for (;;) {
      const left = Math.max(0, timeoutMs - (performance.now() - started));
      const page = toPageResult(
        await this.#call(tabId, tabId, "wait_for_stable", { ...rest, timeout_ms: Math.round(left) }),
      );
      if (!page.success) return page;
      const contexts = new Set((await this.#tabs.frames(tabId)).map((frame) => frame.context));
      if (this.#network.pending(contexts).length === 0) {
        return {
          ...page,
          waited_ms: Math.round(performance.now() - started),
          network_wait_ms: Math.round(networkWaitMs),
          requests_in_flight: 0,
        };
      }
      const networkStarted = performance.now();
      const idle = await this.#network.waitForIdle(contexts, timeoutMs - (performance.now() - started));
      networkWaitMs += performance.now() - networkStarted;
      if (!idle) {
        const pending = this.#network.pending(contexts);
        return {
          success: false,
          code: "timeout",
          error: `wait_for_stable: the page still had ${pending.length} request(s) in flight after ${timeoutMs} ms (${pending
            .slice(0, 3)
            .map((request) => request.url)
            .join(", ")}); read the page as it is, or wait longer with a larger timeout_ms.`,
          requests_in_flight: pending.length,
        };
      }
    }
  }

  /** Dev mode's execute_js: the page's own realm (not the sandbox), so page globals are visible. */
  async #executeJs(tabId: string, params: Record<string, unknown>): Promise<PageResult> {
    const code = typeof params.code === "string" ? params.code : "";
    if (!code.trim())
      return { success: false, error: "execute_js needs code: a JavaScript expression or statements." };
    const result = await this.#client.send("script.evaluate", {
      expression: code,
      target: { context: tabId },
      awaitPromise: true,
      resultOwnership: "none",
      serializationOptions: { maxDomDepth: 0, maxObjectDepth: 4 },
    });
    if (result.type === "exception")
      return { success: false, error: `The code threw: ${result.exceptionDetails.text}` };
    const value = fromRemoteValue(result.result);
    return { success: true, result: isElementHandle(value) ? "(a DOM node)" : (value as PageResult[string]) };
  }

  /** The URL behind an element (link, image, media, download button) for downloads. */
  async #resourceUrl(tabId: string, params: Record<string, unknown>): Promise<PageResult> {
    const located = await this.locate(tabId, params as UploadRequest);
    if (!located.success || !isElementHandle(located.element)) {
      return { success: false, error: located.error ?? "That target is not an element." };
    }
    const url = await this.#channel.callWith(
      tabId,
      `(el) => {
        const raw = el.currentSrc || el.src || el.href || el.getAttribute("data-href") || el.getAttribute("data-url") ||
          el.closest("a[href]")?.href || "";
        return raw ? new URL(raw, document.baseURI).href : "";
      }`,
      [{ sharedId: located.element.sharedId }],
    );
    if (typeof url !== "string" || !url) {
      return {
        success: false,
        error: "That element has no URL (no href or src); point at a link, image or media element.",
      };
    }
    return { success: true, url };
  }

  /** One page-script call, with BiDi failures turned into results or typed errors. */
  async #call(
    tabId: string,
    context: string,
    action: string,
    params: Record<string, unknown>,
    opts: { keepNodes?: boolean } = {},
  ): Promise<PlainValue> {
    const floor = this.#refFloor.get(tabId);
    let answer: PlainValue;
    try {
      answer = await this.#channel.call(
        context,
        action,
        floor === undefined ? params : { ...params, ref_floor: floor },
        { probeShadowRoots: SEARCHING_ACTIONS.has(action), ...opts },
      );
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
    this.#noteRefs(tabId, answer);
    return answer;
  }

  #noteRefs(tabId: string, answer: PlainValue): void {
    if (!isRecord(answer) || !isRecord(answer.metadata)) return;
    const last = answer.metadata.last_ref;
    if (typeof last === "number" && last > (this.#refFloor.get(tabId) ?? 0)) this.#refFloor.set(tabId, last);
  }
}

function pickDefined(params: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (params[key] !== undefined) out[key] = params[key];
  return out;
}

/** Errors that mean the browser or connection is gone: never turned into a result. */
function isFatal(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "connection closed" || error instanceof TabGoneError;
}
