/**
 * Recipient guard (spec 000): on a protected messaging route, nothing that may send a message
 * is dispatched unless the open conversation is provably the recipient the user named.
 *
 * Policy, in order, for each page action on a protected route (routes are data, one line each):
 * 1. Is it send-like? Clicks (except a conversation row in the left rail or focusing an editable),
 *    set_field with submit, Enter, upload_file. Enter in another editable (the recipient search
 *    box) is not a message and passes; Enter with an unknown focus does not.
 * 2. A read-only probe (the accessibility tree, read right before the action) finds the composer
 *    (the one editable of the conversation pane); then the page reports where each heading is
 *    drawn (conversation_header), and the identity is the one strong visible header: visible,
 *    in the composer's pane and column, in the pane's top region above the message list, not
 *    inside the composer or a list (a sidebar's rows). No composer, no such header or two
 *    different ones: refused.
 * 3. The identity must equal the pinned recipient (from the trusted request, see
 *    `recipientFromPlan`). No pinned recipient: refused.
 * 4. A one-use binding of action target, composer, URL and identity is made, and consumed
 *    immediately before the click or key: the URL is read again, and a binding never serves
 *    twice (one Enter per verification).
 * Everything else fails closed with a message that says what to do.
 */
import {
  detailsOf,
  nodeWithRef,
  type PlacedTreeNode,
  placeTreeNodes,
  type ToolDetails,
  TREE_NODES_PARAM,
  treeNodesOf,
} from "@webbrain/protocol";
import type { Plan } from "../loop/planner.js";
import type { BrowserPort, PageResult, TabInfo } from "../tools/browser-port.js";
import { decoratePort } from "../tools/port-decorator.js";
import { type ToolContract, toolSpec } from "../tools/tool-catalog.js";
import type { TargetDescriptor } from "../workflows/workflow-target.js";

export interface MessagingRoute {
  /** The site's host; subdomains match too. */
  host: string;
  /** The path prefix of its conversation pages. */
  pathPrefix: string;
  label: string;
}

/**
 * Protected messaging routes, one line per site: `host path-prefix label...`. Spec 000 names
 * Douyin's /chat; more sites are a line each.
 */
export const MESSAGING_ROUTE_LINES = `
# host        path   label
douyin.com    /chat  Douyin chat
`;

export class RouteListError extends Error {
  override name = "RouteListError";
}

export function parseMessagingRoutes(text: string): MessagingRoute[] {
  const routes: MessagingRoute[] = [];
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const [host, pathPrefix, ...label] = line.split(/\s+/);
    if (!host || !pathPrefix?.startsWith("/")) {
      throw new RouteListError(
        `Route line ${index + 1} ("${line}") needs "host /path-prefix label", e.g. "douyin.com /chat Douyin chat".`,
      );
    }
    routes.push({ host: host.toLowerCase(), pathPrefix, label: label.join(" ") || `${host}${pathPrefix}` });
  }
  return routes;
}

export const PROTECTED_MESSAGING_ROUTES: readonly MessagingRoute[] =
  parseMessagingRoutes(MESSAGING_ROUTE_LINES);

export function matchMessagingRoute(
  url: string,
  routes: readonly MessagingRoute[] = PROTECTED_MESSAGING_ROUTES,
): MessagingRoute | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.host.toLowerCase();
  const hostname = parsed.hostname.toLowerCase();
  return routes.find(
    (route) =>
      (host === route.host || hostname === route.host || hostname.endsWith(`.${route.host}`)) &&
      parsed.pathname.startsWith(route.pathPrefix),
  );
}

const EDITABLE_ROLES: ReadonlySet<string> = new Set(["textbox", "searchbox", "combobox"]);
/** Areas that hold the conversation list (the left rail), not the open conversation. */
const RAIL_AREAS: ReadonlySet<string> = new Set(["navigation", "complementary"]);

function inRail(node: { within: readonly { role: string }[] }): boolean {
  return node.within.some((area) => RAIL_AREAS.has(area.role));
}

function hasEnter(keys: unknown): boolean {
  return typeof keys === "string" && /\benter\b|\breturn\b|\n/i.test(keys);
}

/**
 * Whether a step may dispatch a message, judged from the call alone (saved workflows; the
 * live guard looks at the page too). Conservative: an unknown click counts.
 */
export function isPotentialDispatch(
  tool: string,
  args: Record<string, unknown>,
  target?: TargetDescriptor,
): boolean {
  const spec = toolSpec(tool);
  if (!spec?.sends) return false;
  // A click on an editable focuses it, and a rail row opens a conversation: neither sends.
  if (spec.sends.trigger === "activates" && target && (EDITABLE_ROLES.has(target.role) || inRail(target)))
    return false;
  return triggered(spec, args);
}

/** Whether the call's arguments pull its declared send trigger (the guard then checks the page). */
function triggered(spec: ToolContract, args: Record<string, unknown>): boolean {
  switch (spec.sends?.trigger) {
    case "activates":
    case "uploads":
      return true;
    case "submit_flag":
      return args.submit === true;
    case "enter_key":
      return spec.keysArg !== undefined && hasEnter(args[spec.keysArg]);
    case "typed_newline": {
      const typed = spec.typedArg ? args[spec.typedArg] : undefined;
      return typeof typed === "string" && typed.includes("\n");
    }
    default:
      return false;
  }
}

/**
 * The recipient a plan may pin: only when the plan names one and the user's own words (the
 * trusted request) contain it, so a name the model picked up from a page cannot authorize a send.
 */
export function recipientFromPlan(plan: Plan, task: string): string | undefined {
  const recipient = plan.messageRecipient?.trim();
  if (!recipient) return undefined;
  return normalizeIdentity(task).includes(normalizeIdentity(recipient)) ? recipient : undefined;
}

export function normalizeIdentity(text: string): string {
  return text.normalize("NFKC").replace(/\s+/g, " ").trim().toLowerCase();
}

/** What the page's conversation_header probe reports (its contract: @webbrain/protocol helpers.ts). */
type HeaderProbe = ToolDetails<"conversation_header">;

/** The top part of the conversation pane a header must start in: a quarter, at least this much. */
const HEADER_REGION_MIN_PX = 160;

/**
 * The headings that prove the open conversation's identity, judged by where they are drawn:
 * visible, in the composer's pane and its column (they overlap the composer horizontally), in
 * the pane's top region, above the message list and the composer, and not inside the composer
 * or a list (a sidebar's conversation rows carry names too; they never count).
 */
export function strongHeaders(probe: HeaderProbe): HeaderProbe["headings"] {
  const { composer, pane, messageList } = probe;
  const region = Math.max(HEADER_REGION_MIN_PX, (pane.bottom - pane.top) / 4);
  return probe.headings.filter(
    (h) =>
      h.visible &&
      h.name.trim() !== "" &&
      h.inPane &&
      !h.inComposer &&
      !h.inList &&
      h.box.right > composer.left &&
      h.box.left < composer.right &&
      h.box.top <= pane.top + region &&
      h.box.bottom <= composer.top &&
      (messageList === undefined || h.box.bottom <= messageList.top + 1),
  );
}

interface Binding {
  target: string;
  composer: string;
  url: string;
  identity: string;
}

type Verdict = { kind: "pass" } | { kind: "refuse"; message: string } | { kind: "bind"; binding: Binding };

function refuse(message: string): Verdict {
  return { kind: "refuse", message: `Recipient guard: ${message}` };
}

export class RecipientGuard {
  private readonly pinned = new Map<string, string>();
  /** The editable that last received focus through an action, per tab (Enter goes there). */
  private readonly focus = new Map<string, string>();

  constructor(private routes: readonly MessagingRoute[] = PROTECTED_MESSAGING_ROUTES) {}

  /** Replaces the protected routes (the built-in list plus the user's own lines, say). */
  useRoutes(routes: readonly MessagingRoute[]): void {
    this.routes = routes;
  }

  /** The recipient the user named for the task on this tab (undefined: none; sends are refused). */
  pin(tabId: string, recipient: string | undefined): void {
    if (recipient) this.pinned.set(tabId, recipient);
    else this.pinned.delete(tabId);
  }

  /** The port with the guard in front of every page action. */
  wrap<P extends BrowserPort>(inner: P): P {
    const pageAction: BrowserPort["pageAction"] = async (tabId, name, params, ...rest) => {
      const tab = await inner.getTab(tabId).catch((): TabInfo | undefined => undefined);
      const route = tab ? matchMessagingRoute(tab.url, this.routes) : undefined;
      if (!tab || !route) return inner.pageAction(tabId, name, params, ...rest);
      const verdict = await this.judge(inner, tabId, tab.url, name, params);
      if (verdict.kind === "refuse") return { success: false, error: verdict.message, recipientGuard: true };
      if (verdict.kind === "bind") {
        // Consumed now, immediately before the consequential click or key: the URL must still be
        // the one the identity was read on, and the binding is gone whatever happens next.
        const now = await inner.getTab(tabId).catch((): TabInfo | undefined => undefined);
        if (now?.url !== verdict.binding.url) {
          return {
            success: false,
            error:
              "Recipient guard: the page changed between the recipient check and the send; nothing was sent. Check the open conversation again.",
            recipientGuard: true,
          };
        }
      }
      const result: PageResult = await inner.pageAction(tabId, name, params, ...rest);
      this.noteFocus(tabId, name, params, result);
      return result;
    };
    return decoratePort(inner, { pageAction });
  }

  private noteFocus(tabId: string, name: string, params: Record<string, unknown>, result: PageResult): void {
    if (result.success === false) return;
    // A call that leaves the caret in its ref (`focusesRef`): Enter pressed next goes there.
    if (toolSpec(name)?.focusesRef && params.ref_id !== undefined) {
      this.focus.set(tabId, String(params.ref_id));
    }
  }

  private async judge(
    inner: BrowserPort,
    tabId: string,
    url: string,
    name: string,
    params: Record<string, unknown>,
  ): Promise<Verdict> {
    const spec = toolSpec(name);
    const sends = spec?.sends;
    if (!spec || !sends || !triggered(spec, params)) return { kind: "pass" };
    const probe = await inner.pageAction(tabId, "get_accessibility_tree", { [TREE_NODES_PARAM]: true });
    const read = treeNodesOf(probe);
    if (!read) return refuse("could not read the page to check the recipient; nothing was sent.");
    const nodes = placeTreeNodes(read);
    const refNode = (ref: unknown) => nodeWithRef(nodes, ref);

    let target: PlacedTreeNode | undefined;
    if (sends.target === "focus") {
      const focused = refNode(params.ref_id ?? this.focus.get(tabId));
      if (!focused)
        return refuse(
          "Enter with no known focused field on a messaging page; type into the field first (type_ax) so its target is known.",
        );
      target = focused;
    } else if (sends.target === "none") {
      target = undefined;
    } else {
      target = refNode(params.ref_id);
      if (!target) return refuse(`ref ${String(params.ref_id)} is not on the page now; read the tree again.`);
    }
    if (sends.trigger === "activates" && target) {
      if (EDITABLE_ROLES.has(target.role)) return { kind: "pass" };
      // Selecting a conversation row in the left rail sends nothing.
      if (inRail(target)) return { kind: "pass" };
    }

    const composers = nodes.filter((n) => n.ref !== undefined && EDITABLE_ROLES.has(n.role) && !inRail(n));
    if (composers.length !== 1) {
      return refuse(
        composers.length === 0
          ? "no message composer found in the open conversation; nothing was sent."
          : `${composers.length} possible message composers; cannot tell which conversation a send would reach.`,
      );
    }
    const composer = composers[0]!;
    if (sends.trigger !== "activates" && target) {
      // Enter or submit in another editable (recipient search) sends no message.
      if (target.ref !== composer.ref) return { kind: "pass" };
      const keys = spec.keysArg === undefined ? undefined : params[spec.keysArg];
      if (sends.trigger === "enter_key" && String(keys).match(/enter|return|\n/gi)!.length > 1) {
        return refuse("one Enter per recipient check on a messaging page; press Enter once.");
      }
    }
    const probed = await inner.pageAction(tabId, "conversation_header", { composer: Number(composer.ref) });
    const header = detailsOf("conversation_header", probed);
    if (!header)
      return refuse(`could not read the conversation header (${String(probed.error)}); nothing was sent.`);
    const headers = strongHeaders(header);
    const identities = [...new Set(headers.map((h) => normalizeIdentity(h.name)))];
    if (identities.length !== 1) {
      return refuse(
        identities.length === 0
          ? "the open conversation shows no header naming the recipient; nothing was sent."
          : `the conversation header is ambiguous (${headers.map((h) => JSON.stringify(h.name)).join(", ")}); nothing was sent.`,
      );
    }
    const expected = this.pinned.get(tabId);
    if (!expected) {
      return refuse(
        "no recipient was named for this task, so no message may be sent here. Start a task that names the recipient (with Plan before Act the plan carries it).",
      );
    }
    const identity = identities[0]!;
    if (identity !== normalizeIdentity(expected)) {
      return refuse(
        `the open conversation is with "${headers[0]!.name}", not "${expected}"; nothing was sent. Open the conversation with ${expected} first.`,
      );
    }
    return {
      kind: "bind",
      binding: {
        target: target?.ref === undefined ? "" : String(target.ref),
        composer: String(composer.ref),
        url,
        identity,
      },
    };
  }
}
