/**
 * Closed shadow roots, shown to the page layer and to nobody else.
 *
 * Page script cannot reach a closed shadow root, and in a BiDi sandbox Firefox does not offer
 * `openOrClosedShadowRoot` either. BiDi can: serializing a host with `includeShadowTree: "all"`
 * hands back its closed root as a node. The runner then defines `openOrClosedShadowRoot` on the
 * host's wrapper *inside the sandbox* (an expando on Firefox's X-ray wrapper: the page's own
 * scripts never see it), which is exactly where @webbrain/page looks for privileged roots.
 *
 * Invariants:
 * - Only custom elements (a "-" in the tag name) are probed: that is where closed roots live in
 *   practice, and probing every div would serialize the whole DOM on large pages.
 * - Roots inside exposed roots are found by repeating, at most MAX_NESTING_ROUNDS times.
 * - Best effort: a failure here never fails the action that asked for it.
 */
import type { BidiClient } from "@webbrain/bidi";
import type * as Bidi from "webdriver-bidi-protocol";
import { PAGE_SANDBOX } from "./page-script-channel.js";

const MAX_NESTING_ROUNDS = 3;
/** Upper bound of hosts probed per round, so a page of thousands of custom elements stays fast. */
const MAX_HOSTS_PER_ROUND = 2_000;

/** Custom elements with no root known to the sandbox, searched through every known root. */
const FIND_CANDIDATES = `() => {
  const out = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll("*")) {
      const known = el.openOrClosedShadowRoot ?? el.shadowRoot;
      if (known) visit(known);
      else if (el.localName.includes("-") && out.length < ${MAX_HOSTS_PER_ROUND}) out.push(el);
    }
  };
  visit(document);
  return out;
}`;

const DEFINE_ROOTS = `(...pairs) => {
  for (const [host, root] of pairs) {
    Object.defineProperty(host, "openOrClosedShadowRoot", { value: root, configurable: true });
  }
}`;

/** Makes the closed shadow roots under `context`'s document visible to the sandbox. */
export async function exposeClosedShadowRoots(client: BidiClient, context: string): Promise<number> {
  let exposed = 0;
  try {
    for (let round = 0; round < MAX_NESTING_ROUNDS; round++) {
      const found = await client.send("script.callFunction", {
        functionDeclaration: FIND_CANDIDATES,
        awaitPromise: false,
        target: { context, sandbox: PAGE_SANDBOX },
        serializationOptions: { maxDomDepth: 1, includeShadowTree: "all" },
        resultOwnership: "none",
      });
      if (found.type !== "success" || found.result.type !== "array") return exposed;
      const pairs: Bidi.Script.LocalValue[] = [];
      for (const node of found.result.value ?? []) {
        if (node.type !== "node" || !node.sharedId) continue;
        const root = node.value?.shadowRoot;
        if (root?.sharedId) {
          pairs.push({ type: "array", value: [{ sharedId: node.sharedId }, { sharedId: root.sharedId }] });
        }
      }
      if (pairs.length === 0) return exposed;
      await client.send("script.callFunction", {
        functionDeclaration: DEFINE_ROOTS,
        awaitPromise: false,
        target: { context, sandbox: PAGE_SANDBOX },
        arguments: pairs,
        resultOwnership: "none",
      });
      exposed += pairs.length;
    }
  } catch {
    // The document went away mid-probe, or the page blocks scripts: the action reports that.
  }
  return exposed;
}
