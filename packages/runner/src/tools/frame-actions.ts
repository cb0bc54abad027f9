/**
 * Frame tools in the frame's own browsing context: iframe_click / iframe_type (pressed with
 * trusted input there), a cross-origin iframe_read, verify_form {urlFilter} and promote_iframe.
 * Cross-origin frames are read and operated like any page, because BiDi gives each frame its
 * own context.
 */
import type { PageResult } from "@webbrain/agent";
import type { TabContexts } from "../browser/tab-contexts.js";
import type { PageCaller } from "../port/page-caller.js";
import { pickDefined, toPageResult } from "../port/page-result.js";
import { FrameTargets } from "./frame-targets.js";
import type { PlanPresser } from "./press-and-verify.js";

export class FrameActions {
  readonly #caller: PageCaller;
  readonly #presser: PlanPresser;
  readonly #frames: FrameTargets;

  constructor(caller: PageCaller, presser: PlanPresser, tabs: TabContexts) {
    this.#caller = caller;
    this.#presser = presser;
    this.#frames = new FrameTargets(caller.channel, tabs);
  }

  async promote(tabId: string, params: Record<string, unknown>): Promise<PageResult> {
    const frame = await this.#frames.pick(tabId, params);
    return frame.success ? { success: true, url: frame.url } : frame;
  }

  /** iframe_read: the page layer reads same-origin frames itself; a cross-origin one is read here. */
  async read(tabId: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<PageResult> {
    const call = signal ? { signal } : {};
    const inPage = toPageResult(await this.#caller.call(tabId, tabId, "iframe_read", params, call));
    if (inPage.code !== "cross_origin") return inPage;
    const frame = await this.#frames.pick(tabId, params);
    if (!frame.success) return frame;
    const read = toPageResult(
      await this.#caller.call(
        tabId,
        String(frame.context),
        "read_page",
        pickDefined(params, ["max_chars"]),
        call,
      ),
    );
    return { ...read, src: frame.url, via: "frame context" };
  }

  /**
   * verify_form: in the frame a urlFilter names (the frame iframe_type typed in), else the page.
   * The page layer alone would read the top document's forms whatever the urlFilter said.
   */
  async verifyForm(
    tabId: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const call = signal ? { signal } : {};
    const filter = params.urlFilter ?? params.url_filter;
    if (typeof filter !== "string" || !filter)
      return toPageResult(await this.#caller.call(tabId, tabId, "verify_form", params, call));
    const frame = await this.#frames.pick(tabId, { urlFilter: filter });
    if (!frame.success) return frame;
    const result = toPageResult(
      await this.#caller.call(
        tabId,
        String(frame.context),
        "verify_form",
        pickDefined(params, ["selector"]),
        call,
      ),
    );
    return { ...result, frame: frame.url };
  }

  /** iframe_click / iframe_type: the page layer's click / type_text, resolved and pressed in the frame. */
  async press(
    tabId: string,
    action: "iframe_click" | "iframe_type",
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const frame = await this.#frames.pick(tabId, params);
    if (!frame.success) return frame;
    const target = pickDefined(params, ["selector", "text"]);
    if (params.matchIndex !== undefined) target.match_index = params.matchIndex;
    const pageAction = action === "iframe_click" ? "click" : "type_text";
    const result = await this.#presser.pressAndVerify(
      tabId,
      String(frame.context),
      pageAction,
      target,
      signal,
    );
    return { ...result, frame: frame.url };
  }
}
