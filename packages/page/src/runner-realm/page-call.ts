/**
 * The one door into the page layer, as production uses it: `__webbrainCall(action, paramsJson,
 * keepNodes, hosts?, roots?, probe?)`. Calls only name it, because Firefox compiles a call's
 * source text on every call.
 *
 * A page result travels back as JSON text (an array costs Firefox more to serialize than a
 * string, and a tree of BiDi remote values far more), made by the page layer's `handleJson` when
 * the caller wants no nodes (a plain string rather than a promise when the action does not wait).
 * With `keepNodes`, DOM nodes are cut out and sent after the text, `[json, ...nodes]`, each
 * node's place marked `{"__webbrainNode": index}`; without it they are dropped.
 * A probing call passes `hosts`, `roots` and `probe`: the probe runs first, and when it finds
 * custom elements not yet probed they are the answer (`{"__webbrainHosts": [...]}`).
 */
import { HOSTS_MARKER, MISSING_MARKER, NODE_MARKER } from "./realm-protocol.js";
import type { ShadowProbe } from "./shadow-probe.js";

interface InstalledPage {
  handle(action: string, params: Record<string, unknown>): Promise<unknown>;
  handleJson?(action: string, paramsJson: string): string | Promise<string>;
}

export type PageCall = (
  action: string,
  paramsJson: string,
  keepNodes: boolean,
  hosts?: Element[],
  roots?: (ShadowRoot | null)[],
  probe?: boolean,
) => unknown;

function isNode(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Node).nodeType === "number" &&
    typeof (value as Node).nodeName === "string"
  );
}

export function createPageCall(probeShadowRoots: ShadowProbe): PageCall {
  return (action, paramsJson, keepNodes, hosts, roots, probe) => {
    const page = (globalThis as { __webbrainPage?: InstalledPage }).__webbrainPage;
    if (!page || typeof page.handle !== "function") return { [MISSING_MARKER]: true };
    if (hosts) {
      const found = probeShadowRoots(hosts, roots ?? [], probe === true);
      if (found) return { [HOSTS_MARKER]: found };
    }
    if (!keepNodes && typeof page.handleJson === "function") return page.handleJson(action, paramsJson);
    return page.handle(action, JSON.parse(paramsJson) as Record<string, unknown>).then((result) => {
      const nodes: unknown[] = [];
      const json = JSON.stringify(result, (_key, value: unknown) => {
        if (!isNode(value)) return value;
        if (!keepNodes) return undefined;
        nodes.push(value);
        return { [NODE_MARKER]: nodes.length - 1 };
      });
      return nodes.length === 0 ? json : [json, ...nodes];
    });
  };
}
