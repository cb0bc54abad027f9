/**
 * Page actions as the add-on performs them: most go to the page script in the tab's top
 * document; frame tools go to the chosen frame's own content script (by frameId, so
 * cross-origin frames work); execute_js and resource URLs go to the content script itself;
 * wait_for_stable also waits for the tab's fetch/XHR in flight.
 *
 * Invariants:
 * - Every page call carries `ref_floor` (the highest ref this tab has shown), so a new document
 *   in the tab never hands out a number the model already saw for another element: an old ref
 *   answers stale instead of naming something new.
 * - A frame tool picks exactly one frame or dispatches nothing (frame-targets.ts).
 * - Results are plain JSON with `success`; failures carry a sentence saying what to do.
 * - Stop (the call's signal) rejects at once with AbortError and sends nothing more to the page
 *   but one message that ends the page layer's waits in progress in that frame (`cancelWaits`).
 */
import {
  type PageActionName,
  type PageResult,
  type PageToolName,
  type PortActionName,
  routeOf,
} from "@webbrain/agent";
import { WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS } from "@webbrain/page/protocol";
import {
  CANCEL_WAITS_MESSAGE,
  type CancelWaitsMessage,
  type ElementTarget,
  EXECUTE_JS_MESSAGE,
  type ExecuteJsMessage,
  RESOURCE_URL_MESSAGE,
  type ResourceUrlMessage,
} from "../content/content-messages.js";
import { PAGE_ACTION_MESSAGE, type PageActionMessage } from "../shared/page-messages.js";
import { raceStop, throwIfStopped } from "./abort.js";
import { sendToFrame, TOP_FRAME_ID } from "./content-channel.js";
import { FrameTargets, isPickedFrame } from "./frame-targets.js";
import type { NetworkActivity } from "./network-activity.js";

/** execute_js results longer than this (as JSON text) come back truncated, chars. */
export const EXECUTE_JS_MAX_CHARS = 6_000;

function pickDefined(params: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (params[key] !== undefined) out[key] = params[key];
  return out;
}

type ActionRoute = (
  tabId: number,
  params: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<PageResult>;

export class WebExtPageActions {
  readonly #network: NetworkActivity;
  readonly #frames: FrameTargets;
  /** Highest ref each tab has shown the model. */
  readonly #refFloor = new Map<number, number>();

  constructor(network: NetworkActivity) {
    this.#network = network;
    this.#frames = new FrameTargets({
      listFrames: async (tabId) => (await browser.webNavigation.getAllFrames({ tabId })) ?? [],
      topFrames: (tabId) => this.#call(tabId, TOP_FRAME_ID, "get_frames", {}),
    });
  }

  async run(
    tabId: number,
    action: PageActionName,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    throwIfStopped(signal);
    const route = routeOf(this.#portRoutes, action) ?? routeOf(this.#pageRoutes, action);
    return route ? route(tabId, params, signal) : this.#call(tabId, TOP_FRAME_ID, action, params, signal);
  }

  /** The actions this port answers itself, by their declared names (a missing one fails tsc). */
  readonly #portRoutes: Record<PortActionName, ActionRoute> = {
    iframe_click: (tabId, params, signal) => this.#inFrame(tabId, "iframe_click", params, signal),
    iframe_type: (tabId, params, signal) => this.#inFrame(tabId, "iframe_type", params, signal),
    promote_iframe: (tabId, params, signal) => this.#promoteIframe(tabId, params, signal),
    execute_js: (tabId, params, signal) => raceStop(this.#executeJs(tabId, params), signal),
    resolve_resource_url: (tabId, params, signal) => raceStop(this.#resourceUrl(tabId, params), signal),
  };

  /** Page-layer tools this port runs with more than the top document's page script. */
  readonly #pageRoutes: Partial<Record<PageToolName, ActionRoute>> = {
    iframe_read: (tabId, params, signal) => this.#iframeRead(tabId, params, signal),
    verify_form: (tabId, params, signal) => this.#verifyForm(tabId, params, signal),
    wait_for_stable: (tabId, params, signal) => this.#waitForStable(tabId, params, signal),
    press_keys: (tabId, params, signal) => this.#pressKeys(tabId, params, signal),
  };

  /** Forget a closed tab's ref floor. */
  forgetTab(tabId: number): void {
    this.#refFloor.delete(tabId);
  }

  async #iframeRead(
    tabId: number,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const inPage = await this.#call(tabId, TOP_FRAME_ID, "iframe_read", params, signal);
    return inPage.code === "cross_origin" ? this.#inFrame(tabId, "iframe_read", params, signal) : inPage;
  }

  async #promoteIframe(
    tabId: number,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const frame = await raceStop(this.#frames.pick(tabId, params), signal);
    return isPickedFrame(frame) ? { success: true, url: frame.url } : frame;
  }

  /** iframe_click / iframe_type / a cross-origin iframe_read, in the frame's own content script. */
  async #inFrame(
    tabId: number,
    action: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const frame = await raceStop(this.#frames.pick(tabId, params), signal);
    if (!isPickedFrame(frame)) return frame;
    if (action === "iframe_read") {
      const read = await this.#call(
        tabId,
        frame.frameId,
        "read_page",
        pickDefined(params, ["max_chars"]),
        signal,
      );
      return { ...read, src: frame.url, via: "frame content script" };
    }
    const target = pickDefined(params, ["selector", "text"]);
    if (params.matchIndex !== undefined) target.match_index = params.matchIndex;
    const pageAction = action === "iframe_click" ? "click" : "type_text";
    const result = await this.#call(tabId, frame.frameId, pageAction, target, signal);
    return { ...result, frame: frame.url };
  }

  /** verify_form, in the frame a urlFilter names (the frame iframe_type typed in) or the page. */
  async #verifyForm(
    tabId: number,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const filter = params.urlFilter ?? params.url_filter;
    if (typeof filter !== "string" || !filter)
      return this.#call(tabId, TOP_FRAME_ID, "verify_form", params, signal);
    const frame = await raceStop(this.#frames.pick(tabId, { urlFilter: filter }), signal);
    if (!isPickedFrame(frame)) return frame;
    const result = await this.#call(
      tabId,
      frame.frameId,
      "verify_form",
      pickDefined(params, ["selector"]),
      signal,
    );
    return { ...result, frame: frame.url };
  }

  /**
   * press_keys: with `read_clipboard` (the agent's gate allowed clipboard_read for a paste) the
   * system clipboard is read here (manifest `clipboardRead`: the background page may call
   * navigator.clipboard.readText without a gesture) and handed to the page layer's paste.
   */
  async #pressKeys(
    tabId: number,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const { read_clipboard: readClipboard, clipboard_text: _notFromCaller, ...rest } = params;
    if (readClipboard !== true) return this.#call(tabId, TOP_FRAME_ID, "press_keys", rest, signal);
    let text: string;
    try {
      text = await navigator.clipboard.readText();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const result = await this.#call(tabId, TOP_FRAME_ID, "press_keys", rest, signal);
      return { ...result, clipboard_error: `Firefox refused to read the system clipboard: ${reason}` };
    }
    const result = await this.#call(
      tabId,
      TOP_FRAME_ID,
      "press_keys",
      { ...rest, clipboard_text: text },
      signal,
    );
    return { ...result, pasted_from: "system clipboard" };
  }

  #executeJs(tabId: number, params: Record<string, unknown>): Promise<PageResult> {
    const message: ExecuteJsMessage = {
      type: EXECUTE_JS_MESSAGE,
      code: typeof params.code === "string" ? params.code : "",
      maxChars: EXECUTE_JS_MAX_CHARS,
    };
    return sendToFrame(tabId, TOP_FRAME_ID, message, "execute_js");
  }

  #resourceUrl(tabId: number, params: Record<string, unknown>): Promise<PageResult> {
    const message: ResourceUrlMessage = {
      type: RESOURCE_URL_MESSAGE,
      target: pickDefined(params, ["ref_id", "selector"]) as ElementTarget,
    };
    return sendToFrame(tabId, TOP_FRAME_ID, message, "download_resource_from_page");
  }

  /**
   * wait_for_stable: the page layer's quiet DOM, and no fetch/XHR in flight in the tab (seen by
   * webRequest, which page script cannot). Requests that finish may change the DOM again, so the
   * DOM check runs again after them, all within the one timeout.
   */
  async #waitForStable(
    tabId: number,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const requested = Number(params.timeout_ms ?? params.timeout ?? WAIT_DEFAULT_TIMEOUT_MS);
    const timeoutMs =
      Number.isFinite(requested) && requested >= 0 && requested <= WAIT_MAX_TIMEOUT_MS
        ? requested
        : undefined;
    // Out-of-range timeouts: the page layer answers the sentence that says what is allowed.
    if (timeoutMs === undefined) return this.#call(tabId, TOP_FRAME_ID, "wait_for_stable", params, signal);
    const { timeout: _alias, ...rest } = params;
    const started = performance.now();
    let networkWaitMs = 0;
    for (;;) {
      const left = Math.max(0, timeoutMs - (performance.now() - started));
      const page = await this.#call(
        tabId,
        TOP_FRAME_ID,
        "wait_for_stable",
        { ...rest, timeout_ms: Math.round(left) },
        signal,
      );
      if (!page.success) return page;
      if (this.#network.pending(tabId).length === 0) {
        return {
          ...page,
          waited_ms: Math.round(performance.now() - started),
          network_wait_ms: Math.round(networkWaitMs),
          requests_in_flight: 0,
        };
      }
      const networkStarted = performance.now();
      const idle = await this.#network.waitForIdle(tabId, timeoutMs - (performance.now() - started), signal);
      throwIfStopped(signal);
      networkWaitMs += performance.now() - networkStarted;
      if (!idle) {
        const pending = this.#network.pending(tabId);
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

  /** One page-script call in one frame, with the tab's ref floor, noting the refs it showed. */
  async #call(
    tabId: number,
    frameId: number,
    action: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    throwIfStopped(signal);
    const floor = this.#refFloor.get(tabId);
    const message: PageActionMessage = {
      type: PAGE_ACTION_MESSAGE,
      action,
      params: floor === undefined ? params : { ...params, ref_floor: floor },
    };
    const cancel: CancelWaitsMessage = { type: CANCEL_WAITS_MESSAGE };
    // A page-layer wait outlives an abandoned call: end it in the page too.
    const endWaits = () => void browser.tabs.sendMessage(tabId, cancel, { frameId }).catch(() => undefined);
    signal?.addEventListener("abort", endWaits, { once: true });
    let answer: PageResult;
    try {
      answer = await raceStop(sendToFrame(tabId, frameId, message, action), signal);
    } finally {
      signal?.removeEventListener("abort", endWaits);
    }
    const last = answer.meta?.last_ref;
    if (typeof last === "number" && last > (floor ?? 0)) this.#refFloor.set(tabId, last);
    return answer;
  }
}
