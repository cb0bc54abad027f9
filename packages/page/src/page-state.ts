/**
 * State the layer keeps between calls inside one document: the ref registry, the list behind
 * `click {index}`, and effect baselines waiting for a resolve-mode `verify_effect`.
 * One instance per realm (installed once on globalThis).
 */
import { type LinkClickWatch, watchLinkClick } from "./link-follow.js";
import type { RefRegistry } from "./ref-registry.js";

/** Baselines older than this many entries are dropped: a caller that never verifies leaks nothing. */
const MAX_PENDING_BASELINES = 64;

export interface EffectBaseline {
  element: WeakRef<Element>;
  url: string;
  checked: boolean | undefined;
  value: string | undefined;
  expanded: string | null;
  selected: string | null;
  pressed: string | null;
  dialogs: number;
  focusedRef: number | undefined;
  /** The element's box (`WxH`), only where the action may resize it (drag_drop). */
  size?: string;
  /** A click on a link, watched from resolve until verify_effect (link-follow.ts). */
  link?: LinkClickWatch;
}

export class PageState {
  readonly registry: RefRegistry;
  readonly doc: Document;
  /** Refs in the order of the last get_interactive_elements answer (its `index`). */
  interactiveList: number[] = [];
  /** Text the last synthetic Control+c / Control+x copied (clipboard-keys.ts), for Control+v. */
  copiedText: string | undefined;
  readonly #baselines = new Map<string, EffectBaseline>();
  #nextToken = 1;

  constructor(registry: RefRegistry, doc: Document) {
    this.registry = registry;
    this.doc = doc;
  }

  /**
   * Keeps a resolve-mode baseline until its verify_effect; an element inside a link gets its
   * click watched meanwhile (link-follow.ts), so the verify can say whether the link was followed.
   */
  storeBaseline(baseline: EffectBaseline): string {
    const token = `e${this.#nextToken++}`;
    const el = baseline.element.deref();
    const link = el ? watchLinkClick(this.doc, el) : undefined;
    this.#baselines.set(token, link ? { ...baseline, link } : baseline);
    if (this.#baselines.size > MAX_PENDING_BASELINES) {
      const oldest = this.#baselines.keys().next().value;
      if (oldest !== undefined) {
        this.#baselines.get(oldest)?.link?.stop();
        this.#baselines.delete(oldest);
      }
    }
    return token;
  }

  takeBaseline(token: string): EffectBaseline | undefined {
    const baseline = this.#baselines.get(token);
    this.#baselines.delete(token);
    baseline?.link?.stop();
    return baseline;
  }
}
