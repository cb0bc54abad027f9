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
 */
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

/** Sandbox code: record the roots the runner found, then list custom elements not yet probed. */
export const PROBE_SNIPPET = `
  for (let i = 0; i < hosts.length; i++) {
    hosts[i].__webbrainProbed = true;
    if (roots[i]) Object.defineProperty(hosts[i], "openOrClosedShadowRoot", { value: roots[i], configurable: true });
  }
  if (probe) {
    const found = [];
    const visit = (root) => {
      for (const el of root.querySelectorAll("*")) {
        const known = el.openOrClosedShadowRoot ?? el.shadowRoot;
        if (known) visit(known);
        else if (el.localName.includes("-") && !el.__webbrainProbed && found.length < ${MAX_HOSTS_PER_ROUND} && el.matches(":defined")) found.push(el);
      }
    };
    visit(document);
    if (found.length > 0) return { ${HOSTS_MARKER}: found };
  }`;

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

export const NO_HOSTS: ProbedHosts = {
  hosts: { type: "array", value: [] },
  roots: { type: "array", value: [] },
};
