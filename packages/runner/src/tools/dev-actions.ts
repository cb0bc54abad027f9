/**
 * Dev mode's page tools and the element lookups behind downloads and uploads: execute_js in the
 * page's own realm, the URL behind an element (download_resource_from_page), and the element an
 * upload targets (upload_file).
 */
import type { PageResult, UploadRequest } from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";
import { LOCATE_FUNCTION, RESOURCE_URL_FUNCTION } from "@webbrain/page/runner-realm";
import type { PageCaller } from "../port/page-caller.js";
import { isRecord, toPageResult } from "../port/page-result.js";
import { fromRemoteValue, isElementHandle, type PlainValue } from "../port/remote-value.js";

export interface LocatedElement {
  success: boolean;
  error?: string;
  element?: PlainValue;
  context: string;
}

export class DevActions {
  readonly #client: BidiClient;
  readonly #caller: PageCaller;

  constructor(client: BidiClient, caller: PageCaller) {
    this.#client = client;
    this.#caller = caller;
  }

  /** Dev mode's execute_js: the page's own realm (not the sandbox), so page globals are visible. */
  async executeJs(tabId: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<PageResult> {
    const code = typeof params.code === "string" ? params.code : "";
    if (!code.trim())
      return { success: false, error: "execute_js needs code: a JavaScript expression or statements." };
    const result = await this.#client.send(
      "script.evaluate",
      {
        expression: code,
        target: { context: tabId },
        awaitPromise: true,
        resultOwnership: "none",
        serializationOptions: { maxDomDepth: 0, maxObjectDepth: 4 },
      },
      signal ? { signal } : {},
    );
    if (result.type === "exception")
      return { success: false, error: `The code threw: ${result.exceptionDetails.text}` };
    const value = fromRemoteValue(result.result);
    return { success: true, result: isElementHandle(value) ? "(a DOM node)" : (value as PageResult[string]) };
  }

  /** The element an upload targets: a ref from the tree (resolved by the page) or a selector. */
  async locate(tabId: string, request: UploadRequest, signal?: AbortSignal): Promise<LocatedElement> {
    if (request.ref_id !== undefined) {
      const resolved = await this.#caller.call(
        tabId,
        tabId,
        "click_ax",
        { ref_id: request.ref_id, mode: "resolve" },
        { keepNodes: true, ...(signal ? { signal } : {}) },
      );
      if (!isRecord(resolved) || resolved.success !== true)
        return { ...toPageResult(resolved), context: tabId };
      const element = isRecord(resolved.runner) ? resolved.runner.element : undefined;
      return { success: true, element: element ?? null, context: tabId };
    }
    if (request.selector) {
      const found = await this.#caller.channel.callWith(
        tabId,
        LOCATE_FUNCTION,
        [{ type: "string", value: request.selector }],
        signal ? { signal } : {},
      );
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

  /** The URL behind an element (link, image, media, download button) for downloads. */
  async resourceUrl(
    tabId: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const located = await this.locate(tabId, params as UploadRequest, signal);
    if (!located.success || !isElementHandle(located.element)) {
      return { success: false, error: located.error ?? "That target is not an element." };
    }
    const url = await this.#caller.channel.callWith(
      tabId,
      RESOURCE_URL_FUNCTION,
      [{ sharedId: located.element.sharedId }],
      signal ? { signal } : {},
    );
    if (typeof url !== "string" || !url) {
      return {
        success: false,
        error: "That element has no URL (no href or src); point at a link, image or media element.",
      };
    }
    return { success: true, url };
  }
}
