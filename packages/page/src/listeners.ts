/**
 * Which elements a page wired for pointer or key input by script: `addEventListener` (jQuery
 * included, it calls it), `el.onclick = fn` properties, and delegated handlers on an ancestor
 * whose target selector can be told (jQuery's `.on(type, selector, fn)`, or a listener whose
 * source tests `closest("…")` / `matches("…")` / `classList.contains("…")`).
 *
 * How, invisibly to the page: `installListenerHook` runs in our isolated realm (the runner's
 * BiDi sandbox through a preload script, the add-on's content script at document_start), before
 * any page script. It replaces the page's `EventTarget.prototype.addEventListener` with a Proxy
 * of the original built in the page's own realm, whose `apply` trap lives in our realm. The
 * page sees a function that prints `function () { [native code] }` and behaves as the original;
 * what the trap records (a WeakSet of elements, a short list of possible delegation hosts) lives
 * in our realm, where page scripts cannot read or change it.
 *
 * Invariants:
 * - The trap never throws into the page and always calls the original with the page's arguments.
 * - Only elements (not window, document, html or body) are marked as wired: listeners there are
 *   global shortcuts or delegation hosts, analysed per tree build instead.
 * - Outside a privileged realm (no `wrappedJSObject`, e.g. the page's own realm in tests) the hook
 *   installs nothing; property handlers and jQuery delegation are still found at build time.
 * - Listeners added before the hook (scripts that ran before it) are not seen; removed ones are
 *   still counted (a ref to an element that no longer reacts costs one useless click at worst).
 */
import { nativeDom } from "./native-dom.js";

/** Event types that mean "a person can click or key this". */
export const WIRING_EVENTS: ReadonlySet<string> = new Set([
  "click",
  "dblclick",
  "auxclick",
  "mousedown",
  "mouseup",
  "pointerdown",
  "pointerup",
  "touchstart",
  "touchend",
  "keydown",
  "keyup",
  "keypress",
]);

/** Delegation hosts kept for analysis; a page adding more keeps only the first ones. */
const MAX_DELEGATION_LISTENERS = 400;
/**
 * A listener on an element holding more than this many elements is taken for a delegation we
 * could not read (a page-wide container listening for its content), not for one control.
 */
const MAX_WIRED_DESCENDANTS = 40;
/** Selectors taken from one listener's source. */
const MAX_SELECTORS_PER_LISTENER = 8;
const ELEMENT_NODE = 1;
const DOCUMENT_NODE = 9;

/**
 * Held strongly (up to MAX_DELEGATION_LISTENERS): what our realm holds is a wrapper of the page's
 * object, and a WeakRef to a wrapper may die while the page's object lives.
 */
interface DelegationEntry {
  host: object;
  listener: object | undefined;
}

/** What the hook records, kept on our realm's global under LOG_KEY. */
export interface ListenerLog {
  wired: WeakSet<object>;
  delegations: DelegationEntry[];
  hosts: WeakSet<object>;
}

const LOG_KEY = "__webbrainListeners";

type ScopeWithLog = typeof globalThis & {
  [LOG_KEY]?: ListenerLog;
  exportFunction?: (fn: (...args: never[]) => unknown, scope: object) => unknown;
};

/** The page's own realm as reached through an Xray waiver (only in privileged realms). */
interface WaivedWindow {
  EventTarget: { prototype: { addEventListener: unknown } };
  Object: new () => Record<string, unknown>;
  Proxy: new (target: unknown, handler: object) => unknown;
  jQuery?: JQueryLike;
  Function: {
    prototype: { toString: { call(fn: unknown): string } };
    new (...args: string[]): (...args: unknown[]) => unknown;
  };
}

interface JQueryLike {
  _data?: (
    node: unknown,
    key: string,
  ) => Record<string, Array<{ selector?: unknown }> | undefined> | undefined;
}

function waived(win: Window): WaivedWindow | undefined {
  return (win as unknown as { wrappedJSObject?: WaivedWindow }).wrappedJSObject;
}

export function listenerLog(): ListenerLog | undefined {
  return (globalThis as ScopeWithLog)[LOG_KEY];
}

/** Installs the recording hook once per realm. Returns whether a hook is in place. */
export function installListenerHook(win: Window): boolean {
  const scope = globalThis as ScopeWithLog;
  if (scope[LOG_KEY]) return true;
  const page = waived(win);
  if (!page) return false;
  const log: ListenerLog = { wired: new WeakSet(), delegations: [], hosts: new WeakSet() };
  try {
    const proto = page.EventTarget.prototype;
    const original = proto.addEventListener;
    const handler = new page.Object();
    const trap = (target: (...a: unknown[]) => unknown, self: unknown, args: unknown[]): unknown => {
      // Through an Xray a page array hides its function elements: read the arguments waived,
      // and pass them on waived too, or the page's listener would arrive as undefined.
      const raw = (args as unknown as { wrappedJSObject?: unknown[] }).wrappedJSObject ?? args;
      try {
        record(log, self, raw[0], raw[1]);
      } catch {
        // Recording is best effort: the page's call must go through whatever happens here.
      }
      return Reflect.apply(target, self, raw);
    };
    // A content script must export what the page's realm calls; a BiDi sandbox shares the
    // page's principal and may hand it over as is.
    const exported = <F extends (...args: never[]) => unknown>(fn: F): unknown =>
      scope.exportFunction ? scope.exportFunction(fn, handler) : fn;
    const recordCall = (self: unknown, type: unknown, listener: unknown): void => {
      // The listener arrives as an Xray: keep the page's own function (its source is read later).
      const own = (listener as { wrappedJSObject?: unknown } | null)?.wrappedJSObject ?? listener;
      record(log, self, type, own);
    };
    handler.apply = pageRealmTrap(page, exported(recordCall)) ?? exported(trap);
    proto.addEventListener = new page.Proxy(original, handler);
  } catch {
    return false;
  }
  scope[LOG_KEY] = log;
  return true;
}

/**
 * The apply trap built in the page's own realm, where the page allows building functions (no
 * CSP against eval). Firefox sets `window.event` for a listener only when the realm that called
 * addEventListener (the incumbent) is the page's window: called from a trap of our realm, every
 * listener of the page would see `event` undefined (MiniWoB's d3 handlers read it).
 */
function pageRealmTrap(page: WaivedWindow, recordCall: unknown): unknown {
  try {
    const make = new page.Function(
      "record",
      "const apply = Reflect.apply; return function (target, self, args) { try { record(self, args[0], args[1]); } catch (e) {} return apply(target, self, args); };",
    );
    return make(recordCall);
  } catch {
    return undefined; // CSP forbids it: our realm's trap records the same, without window.event
  }
}

function record(log: ListenerLog, self: unknown, type: unknown, listener: unknown): void {
  if (typeof type !== "string" || !WIRING_EVENTS.has(type) || !self || typeof self !== "object") return;
  const node = self as Node;
  const nodeType = node.nodeType;
  const tag = nodeType === ELEMENT_NODE ? (node as Element).localName : "";
  if (nodeType === ELEMENT_NODE && tag !== "html" && tag !== "body") log.wired.add(node);
  // Any host may delegate (a list listening for its items); analysed at build time.
  if (log.delegations.length >= MAX_DELEGATION_LISTENERS) return;
  if (nodeType !== ELEMENT_NODE && nodeType !== DOCUMENT_NODE) return;
  log.hosts.add(node);
  const held = listener && (typeof listener === "object" || typeof listener === "function");
  log.delegations.push({ host: node, listener: held ? (listener as object) : undefined });
}

const SELECTOR_IN_SOURCE = /\.(?:closest|matches)\(\s*(["'`])([^"'`]{1,120})\1\s*\)/g;
const CLASS_IN_SOURCE = /\.classList\.contains\(\s*(["'`])([\w-]{1,60})\1\s*\)/g;

/** Selectors a listener's source tests its event target against. */
export function selectorsInSource(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(SELECTOR_IN_SOURCE)) {
    if (found.length >= MAX_SELECTORS_PER_LISTENER) break;
    if (match[2]) found.push(match[2]);
  }
  for (const match of source.matchAll(CLASS_IN_SOURCE)) {
    if (found.length >= MAX_SELECTORS_PER_LISTENER) break;
    if (match[2]) found.push(`.${match[2]}`);
  }
  return found;
}

/**
 * Per tree build: answers whether an element is wired. Delegated targets are resolved once per
 * build (a querySelectorAll per selector a host delegates to).
 */
export class WiringIndex {
  readonly #log: ListenerLog | undefined;
  readonly #delegated = new WeakSet<object>();
  /** Hosts whose listeners only delegate (a list handling its items): not controls themselves. */
  readonly #delegators = new WeakSet<object>();
  delegatedCount = 0;

  constructor(doc: Document) {
    this.#log = listenerLog();
    const view = doc.defaultView;
    // In the page's own realm (no waiver) the window is the page's already.
    const page = view ? (waived(view) ?? (view as unknown as WaivedWindow)) : undefined;
    const hosts: Array<{ host: Document | Element; selectors: string[] }> = [];
    const seenHosts = new Set<object>();
    for (const entry of this.#log?.delegations ?? []) {
      const host = entry.host as Document | Element;
      const selectors: string[] = [];
      const listener = entry.listener;
      if (listener && page) {
        try {
          selectors.push(...selectorsInSource(page.Function.prototype.toString.call(listener)));
        } catch {
          // A listener object ({handleEvent}) or a revoked proxy has no source to read.
        }
      }
      if (selectors.length > 0) this.#delegators.add(host);
      if (!seenHosts.has(host)) {
        seenHosts.add(host);
        const jquery = jqueryDelegateSelectors(page, host);
        if (jquery.onlyDelegated) this.#delegators.add(host);
        selectors.push(...jquery.selectors);
      }
      if (selectors.length > 0) hosts.push({ host, selectors });
    }
    // Without the hook, jQuery delegation on the document is still visible through jQuery.
    if (!this.#log) hosts.push({ host: doc, selectors: jqueryDelegateSelectors(page, doc).selectors });
    for (const { host, selectors } of hosts) {
      for (const selector of selectors) {
        let matches: NodeListOf<Element>;
        try {
          matches = host.querySelectorAll(selector);
        } catch {
          continue; // jQuery's own selector extensions (":first") are not CSS
        }
        for (const el of matches) {
          if (!this.#delegated.has(el)) this.delegatedCount++;
          this.#delegated.add(el);
        }
      }
    }
  }

  /** Wired by a recorded listener, a delegation, or a handler property. */
  isWired(el: Element): boolean {
    if (this.#delegated.has(el)) return true;
    if (this.#log?.wired.has(el) && !this.#delegators.has(el))
      return el.getElementsByTagName("*").length <= MAX_WIRED_DESCENDANTS;
    // Native getters: from a sandbox, `el.onclick` resolves the name through the wrapper each time.
    const dom = nativeDom();
    return typeof dom.onclick(el) === "function" || typeof dom.onmousedown(el) === "function";
  }
}

interface JQueryDelegation {
  selectors: string[];
  /** Every jQuery input handler on the host names a selector (the host itself reacts to none). */
  onlyDelegated: boolean;
}

/** jQuery keeps `.on(type, selector, fn)` in its own data; the selector says which targets. */
function jqueryDelegateSelectors(page: WaivedWindow | undefined, host: object): JQueryDelegation {
  const none = { selectors: [], onlyDelegated: false };
  const jq = page?.jQuery;
  if (!jq || typeof jq._data !== "function") return none;
  try {
    const unwrapped = (host as { wrappedJSObject?: object }).wrappedJSObject ?? host;
    const events = jq._data(unwrapped, "events");
    if (!events) return none;
    const selectors: string[] = [];
    let direct = 0;
    for (const type of WIRING_EVENTS) {
      const handlers = events[type];
      if (!handlers) continue;
      for (let i = 0; i < handlers.length; i++) {
        const selector = handlers[i]?.selector;
        if (typeof selector === "string" && selector) selectors.push(selector);
        else direct++;
      }
    }
    return { selectors, onlyDelegated: selectors.length > 0 && direct === 0 };
  } catch {
    return none;
  }
}
