/**
 * Closed shadow roots, shown to the page layer and to nobody else.
 *
 * Page script cannot reach a closed shadow root, and in a BiDi sandbox Firefox does not offer
 * `openOrClosedShadowRoot` either. BiDi can: serializing a host with `includeShadowTree: "all"`
 * hands back its closed root as a node. The runner then defines `openOrClosedShadowRoot` on the
 * host's wrapper *inside the sandbox* (an expando on Firefox's X-ray wrapper: the page's own
 * scripts never see it), which is exactly where @webbrain/page looks for privileged roots.
 *
 * This rides on the page-script call itself (page-script-channel.ts), so a page whose custom
 * elements were all probed costs no extra round trip:
 * 1. the call first looks for custom elements not yet probed (`:defined`, a "-" in the tag;
 *    closed roots live there in practice, and probing every div would serialize the DOM);
 * 2. if there are some, it answers them instead of running the action, serialized with their
 *    shadow roots; the runner calls again with hosts and roots, which the sandbox records
 *    (and marks as probed) before probing again (nested roots) and running the action.
 *
 * The look runs on every searching action, over the whole document, so it is installed once per
 * realm (PROBE_SHIM) and reads through native getters captured at install: one getter call per
 * element (its tag name) for all but custom elements and the few tags that can host a root.
 * Through the sandbox's wrappers, property reads cost ~1.4 us each; the first version's three
 * per element made the look 38 ms on a 5,000-element page and 119 ms on Python's stdtypes.html.
 */
import { SHADOW_HOST_TAG_NAMES } from "@webbrain/page/protocol";
import type * as Bidi from "webdriver-bidi-protocol";

/**
 * Sandbox code run before the page layer installs: gives every element an
 * `openOrClosedShadowRoot` (null unless the runner recorded a root on the host), so the page
 * layer, which checks once per realm whether the property exists, reads the roots we record.
 * Defined on the sandbox's X-ray view of Element.prototype: invisible to the page.
 */
export const PRIVILEGED_ROOTS_SHIM = `if (!("openOrClosedShadowRoot" in Element.prototype)) {
  Object.defineProperty(Element.prototype, "openOrClosedShadowRoot", { get() { return null; }, configurable: true });
}`;

export const HOSTS_MARKER = "__webbrainHosts";
/** Upper bound of hosts answered per round, so a page of thousands of custom elements stays fast. */
export const MAX_HOSTS_PER_ROUND = 2_000;
/** Probe rounds per call: each round reaches one more level of nested closed roots. */
export const MAX_PROBE_ROUNDS = 3;

/** The probe's global in the sandbox: `(hosts, roots, probe) => unprobed custom elements | undefined`. */
export const PROBE_GLOBAL = "__webbrainProbe";

/**
 * Sandbox code run at install: defines PROBE_GLOBAL. It records the roots the runner found
 * (marking their hosts as probed), then, when asked to probe, lists custom elements not yet
 * probed, walking into every shadow root it can reach (open ones, and closed ones recorded).
 */
export const PROBE_SHIM = `globalThis.${PROBE_GLOBAL} = (() => {
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const localNameOf = getter(Element.prototype, "localName");
  const shadowRootOf = getter(Element.prototype, "shadowRoot");
  const nextNode = TreeWalker.prototype.nextNode;
  const createTreeWalker = Document.prototype.createTreeWalker;
  const matches = Element.prototype.matches;
  const hostTags = new Set(${JSON.stringify(SHADOW_HOST_TAG_NAMES)});
  return (hosts, roots, probe) => {
    for (let i = 0; i < hosts.length; i++) {
      hosts[i].__webbrainProbed = true;
      if (roots[i]) Object.defineProperty(hosts[i], "openOrClosedShadowRoot", { value: roots[i], configurable: true });
    }
    if (!probe) return undefined;
    const found = [];
    const visit = (root) => {
      const walker = createTreeWalker.call(document, root, 1 /* SHOW_ELEMENT */);
      for (let el = nextNode.call(walker); el; el = nextNode.call(walker)) {
        const name = localNameOf.call(el);
        if (name.includes("-")) {
          const known = el.openOrClosedShadowRoot ?? shadowRootOf.call(el);
          if (known) visit(known);
          else if (!el.__webbrainProbed && found.length < ${MAX_HOSTS_PER_ROUND} && matches.call(el, ":defined")) found.push(el);
        } else if (hostTags.has(name)) {
          const open = shadowRootOf.call(el);
          if (open) visit(open);
        }
      }
    };
    visit(document);
    return found.length > 0 ? found : undefined;
  };
})();`;

export interface ProbedHosts {
  hosts: Bidi.Script.LocalValue;
  roots: Bidi.Script.LocalValue;
}

/** The hosts a probe answered, with their roots (null where a host has none), as call arguments. */
export function probedHosts(result: Bidi.Script.RemoteValue): ProbedHosts | undefined {
  if (result.type !== "object") return undefined;
  const entry = result.value?.find(([key]) => key === HOSTS_MARKER)?.[1];
  if (entry?.type !== "array") return undefined;
  const hosts: Bidi.Script.LocalValue[] = [];
  const roots: Bidi.Script.LocalValue[] = [];
  for (const node of entry.value ?? []) {
    if (node.type !== "node" || !node.sharedId) continue;
    hosts.push({ sharedId: node.sharedId });
    const root = node.value?.shadowRoot;
    roots.push(root?.sharedId ? { sharedId: root.sharedId } : { type: "null" });
  }
  return { hosts: { type: "array", value: hosts }, roots: { type: "array", value: roots } };
}
