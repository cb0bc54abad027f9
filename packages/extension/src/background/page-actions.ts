/**
 * Page actions as the add-on performs them: most go to the page script in the tab's top
 * document; frame tools go to the chosen frame's own content script (by frameId, so
 * cross-origin frames work); execute_js and resource URLs go to the content script itself;
 * wait_for_stable also waits for the tab's fetch/XHR in flight.
 *
 * Invariants:
 * - Every page call carries `ref_floor` (the highest ref this tab has shown; the agent's
 *   RefFloors), so a new document in the tab never hands out a number the model already saw for
 *   another element: an old ref answers stale instead of naming something new.
 * - A frame tool picks exactly one frame or dispatches nothing (the agent's pickFrame, over
 *   webNavigation's frames).
 * - Results are plain JSON with `success`; failures carry a sentence saying what to do.
 * - Stop (the call's signal) rejects at once with AbortError and sends nothing more to the page
 *   but one message that ends the page layer's waits in progress in that frame (`cancelWaits`).
 */
import {
  type FrameCandidate,
  type FramePick,
  type PageActionName,
  type PageResult,
  type PageToolName,
  type PortActionName,
  pickFrame,
  RefFloors,
  routeOf,
  waitForStablePage,
} from "@webbrain/agent";
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
import { raceStop, stoppedError, throwIfStopped } from "./abort.js";
import { sendToFrame, TOP_FRAME_ID } from "./content-channel.js";
import type { NetworkActivity } from "./network-activity.js";

/** execute_js results longer than this (as JSON text) come back truncated, chars. */
export const EXECUTE_JS_MAX_CHARS = 6_000;

function pickDefined(params: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (params[key] !== undefined) out[key] = params[key];
  return out;
}

/** A frame of the tab as webNavigation numbers it. */
interface TabFrame extends FrameCandidate {
  frameId: number;
}

type ActionRoute = (
  tabId: number,
  params: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<PageResult>;

export class WebExtPageActions {
  readonly #network: NetworkActivity;
  /** Highest ref each tab has shown the model. */
  readonly #refFloors = new RefFloors<number>();

  constructor(network: NetworkActivity) {
    this.#network = network;
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
    this.#refFloors.forget(tabId);
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
    const picked = await this.#pickFrame(tabId, params, signal);
    return "frame" in picked ? { success: true, url: picked.frame.url } : picked.failure;
  }

  /**
   * The one frame the params name (never the top document), by webNavigation's frameIds: child
   * frames in frameId order, the order they were created in, as get_frames lists them.
   */
  #pickFrame(
    tabId: number,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<FramePick<TabFrame>> {
    const frames = async (): Promise<TabFrame[]> =>
      ((await browser.webNavigation.getAllFrames({ tabId })) ?? [])
        .filter((frame) => frame.frameId !== TOP_FRAME_ID)
        .sort((a, b) => a.frameId - b.frameId)
        .map((frame) => ({
          frameId: frame.frameId,
          url: frame.url,
          child: frame.parentFrameId === TOP_FRAME_ID,
        }));
    const listedFrames = () => this.#call(tabId, TOP_FRAME_ID, "get_frames", {});
    return raceStop(pickFrame({ frames, listedFrames }, params), signal);
  }

  /** iframe_click / iframe_type / a cross-origin iframe_read, in the frame's own content script. */
  async #inFrame(
    tabId: number,
    action: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const picked = await this.#pickFrame(tabId, params, signal);
    if ("failure" in picked) return picked.failure;
    const { frame } = picked;
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
    const picked = await this.#pickFrame(tabId, { urlFilter: filter }, signal);
    if ("failure" in picked) return picked.failure;
    const { frame } = picked;
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
   * wait_for_stable: the agent's composition (the page layer's quiet DOM, then no fetch/XHR in
   * flight, within one timeout) over the top document and the tab's requests as webRequest sees
   * them, in any frame (page script cannot).
   */
  #waitForStable(tabId: number, params: Record<string, unknown>, signal?: AbortSignal): Promise<PageResult> {
    return waitForStablePage(
      {
        pageWait: (pageParams) => this.#call(tabId, TOP_FRAME_ID, "wait_for_stable", pageParams, signal),
        requests: this.#network,
        owners: async () => new Set([tabId]),
        stopError: stoppedError,
      },
      params,
      signal,
    );
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
    const cancel: CancelWaitsMessage = { type: CANCEL_WAITS_MESSAGE };
    // A page-layer wait outlives an abandoned call: end it in the page too.
    const endWaits = () => void browser.tabs.sendMessage(tabId, cancel, { frameId }).catch(() => undefined);
    signal?.addEventListener("abort", endWaits, { once: true });
    try {
      return await this.#refFloors.call(tabId, params, (withFloor) => {
        const message: PageActionMessage = { type: PAGE_ACTION_MESSAGE, action, params: withFloor };
        return raceStop(sendToFrame(tabId, frameId, message, action), signal);
      });
    } finally {
      signal?.removeEventListener("abort", endWaits);
    }
  }
}
