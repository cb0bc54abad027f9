/**
 * Page actions as the runner performs them: which module runs which action.
 *
 * - element actions (TRUSTED_ACTIONS): resolve, press with trusted input, verify
 *   (press-and-verify.ts);
 * - frame tools in the frame's own context (frame-actions.ts);
 * - wait_for_stable with Firefox's view of the network (stable-wait.ts);
 * - Dev tools and element lookups for downloads/uploads (dev-actions.ts);
 * - everything else straight through the page script (page-caller.ts).
 *
 * Invariants: a result is plain JSON (page-result.ts); errors the page or model caused become
 * `{success: false, error}`; a closed tab throws TabGoneError, a dead browser rethrows the
 * connection error, and Stop (the signal) rejects with the Stop error after ending the work in
 * the page.
 */
import {
  type PageResult,
  type PageToolName,
  type PortActionName,
  routeOf,
  type UploadRequest,
} from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";
import type { DialogHandler } from "../browser/dialog-handler.js";
import type { NavigationEvents } from "../browser/navigation-watch.js";
import type { NetworkActivity } from "../browser/network-activity.js";
import type { TabContexts } from "../browser/tab-contexts.js";
import { PageCaller } from "../port/page-caller.js";
import { toPageResult } from "../port/page-result.js";
import type { PageScriptChannel } from "../port/page-script-channel.js";
import { TRUSTED_ACTIONS } from "./action-sets.js";
import { DevActions, type LocatedElement } from "./dev-actions.js";
import { FrameActions } from "./frame-actions.js";
import { PlanPresser } from "./press-and-verify.js";
import { waitForStable } from "./stable-wait.js";

export { toPageResult } from "../port/page-result.js";
export type { LocatedElement } from "./dev-actions.js";

type ActionRoute = (
  tabId: string,
  params: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<PageResult>;

export class ElementActions {
  readonly #caller: PageCaller;
  readonly #presser: PlanPresser;
  readonly #frames: FrameActions;
  readonly #dev: DevActions;
  readonly #tabs: TabContexts;
  readonly #network: NetworkActivity;

  constructor(
    client: BidiClient,
    channel: PageScriptChannel,
    tabs: TabContexts,
    dialogs: DialogHandler,
    network: NetworkActivity,
    navigations: NavigationEvents,
  ) {
    this.#caller = new PageCaller(channel);
    this.#presser = new PlanPresser(client, this.#caller, dialogs, navigations);
    this.#frames = new FrameActions(this.#caller, this.#presser, tabs);
    this.#dev = new DevActions(client, this.#caller);
    this.#tabs = tabs;
    this.#network = network;
  }

  async run(
    tabId: string,
    action: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PageResult> {
    const route = routeOf(this.#portRoutes, action) ?? routeOf(this.#pageRoutes, action);
    if (route) return route(tabId, params, signal);
    if (TRUSTED_ACTIONS.has(action))
      return this.#presser.pressAndVerify(tabId, tabId, action, params, signal);
    return toPageResult(await this.#caller.call(tabId, tabId, action, params, signal ? { signal } : {}));
  }

  /** The actions this port answers itself, by their declared names (a missing one fails tsc). */
  readonly #portRoutes: Record<PortActionName, ActionRoute> = {
    iframe_click: (tabId, params, signal) => this.#frames.press(tabId, "iframe_click", params, signal),
    iframe_type: (tabId, params, signal) => this.#frames.press(tabId, "iframe_type", params, signal),
    promote_iframe: (tabId, params) => this.#frames.promote(tabId, params),
    execute_js: (tabId, params, signal) => this.#dev.executeJs(tabId, params, signal),
    resolve_resource_url: (tabId, params, signal) => this.#dev.resourceUrl(tabId, params, signal),
  };

  /** Page-layer tools this port runs with more than the page script (frames of other origins, the network). */
  readonly #pageRoutes: Partial<Record<PageToolName, ActionRoute>> = {
    iframe_read: (tabId, params, signal) => this.#frames.read(tabId, params, signal),
    verify_form: (tabId, params, signal) => this.#frames.verifyForm(tabId, params, signal),
    wait_for_stable: (tabId, params, signal) =>
      waitForStable(this.#caller, this.#tabs, this.#network, tabId, params, signal),
  };

  /** The element an upload targets: a ref from the tree (resolved by the page) or a selector. */
  locate(tabId: string, request: UploadRequest, signal?: AbortSignal): Promise<LocatedElement> {
    return this.#dev.locate(tabId, request, signal);
  }
}
