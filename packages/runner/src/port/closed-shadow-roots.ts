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
 * The in-page half (the roots shim, the probe, the call door) is TypeScript in the page package's
 * second bundle (@webbrain/page runner-realm/, installed before the page layer); this module is
 * the runner's half: it reads the hosts a probe answered. The look runs on every searching action
 * over the whole document, so the probe reads through native getters captured at install (the
 * first version's three property reads per element made the look 38 ms on a 5,000-element page).
 */
import { HOSTS_MARKER } from "@webbrain/page/runner-realm";
import type * as Bidi from "webdriver-bidi-protocol";

export { MAX_PROBE_ROUNDS } from "@webbrain/page/runner-realm";

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
