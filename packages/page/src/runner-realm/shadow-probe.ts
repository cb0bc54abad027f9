/**
 * Closed shadow roots, shown to the page layer and to nobody else (the runner's half is
 * runner/src/port/closed-shadow-roots.ts). BiDi hands back a host's closed root when the host is
 * serialized with `includeShadowTree: "all"`; the probe records such roots on the hosts'
 * sandbox wrappers, and lists custom elements not yet probed so the runner can fetch theirs.
 *
 * It runs on every searching action over the whole document, so it reads through native getters
 * captured at install: one getter call per element (its tag name) for all but custom elements and
 * the few tags that can host a root (through the sandbox's wrappers a property read costs ~1.4 us).
 */
import { SHADOW_HOST_TAG_NAMES } from "../protocol.js";
import { MAX_HOSTS_PER_ROUND } from "./realm-protocol.js";

/** A host the probe recorded or listed; the expando lives on the sandbox's wrapper only. */
type ProbedElement = Element & { __webbrainProbed?: boolean; openOrClosedShadowRoot?: ShadowRoot | null };

export type ShadowProbe = (
  hosts: Element[],
  roots: (ShadowRoot | null)[],
  probe: boolean,
) => Element[] | undefined;

function nativeGetter<T>(proto: object, name: string): (this: unknown) => T {
  const descriptor = Object.getOwnPropertyDescriptor(proto, name);
  if (!descriptor?.get) throw new Error(`shadow probe: ${name} has no native getter`);
  return descriptor.get as (this: unknown) => T;
}

export function createShadowProbe(): ShadowProbe {
  const localNameOf = nativeGetter<string>(Element.prototype, "localName");
  const shadowRootOf = nativeGetter<ShadowRoot | null>(Element.prototype, "shadowRoot");
  const nextNode = TreeWalker.prototype.nextNode;
  const createTreeWalker = Document.prototype.createTreeWalker;
  const matches = Element.prototype.matches;
  const hostTags = new Set(SHADOW_HOST_TAG_NAMES);
  return (hosts, roots, probe) => {
    for (let i = 0; i < hosts.length; i++) {
      const host = hosts[i] as ProbedElement;
      host.__webbrainProbed = true;
      const root = roots[i];
      if (root) Object.defineProperty(host, "openOrClosedShadowRoot", { value: root, configurable: true });
    }
    if (!probe) return undefined;
    const found: Element[] = [];
    const visit = (root: Node) => {
      const walker = createTreeWalker.call(document, root, NodeFilter.SHOW_ELEMENT);
      for (let node = nextNode.call(walker); node; node = nextNode.call(walker)) {
        const el = node as ProbedElement;
        const name = localNameOf.call(el);
        if (name.includes("-")) {
          const known = el.openOrClosedShadowRoot ?? shadowRootOf.call(el);
          if (known) visit(known);
          else if (!el.__webbrainProbed && found.length < MAX_HOSTS_PER_ROUND && matches.call(el, ":defined"))
            found.push(el);
        } else if (hostTags.has(name)) {
          const open = shadowRootOf.call(el);
          if (open) visit(open);
        }
      }
    };
    visit(document);
    return found.length > 0 ? found : undefined;
  };
}
