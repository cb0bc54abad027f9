/**
 * Counts the popups Firefox's popup blocker stops, so an action's result can say "this click
 * tried to open 49 windows and was refused". Firefox tells only its own chrome (the
 * `DOMPopupBlocked` event); BiDi has no event for it and `browsingContext.contextCreated` never
 * fires for a window that was not made. What a page does see is `window.open` answering null.
 *
 * How, invisibly to the page (as listeners.ts does for addEventListener): from our isolated
 * realm, before page scripts run, the page's `window.open` is replaced with a Proxy of the
 * original built in the page's realm; its apply trap calls the original with the page's
 * arguments and, when that answers null, tells our realm. The count lives in our realm, where the
 * page cannot read or reset it.
 *
 * Invariants:
 * - The trap never throws into the page and returns exactly what the original returned.
 * - `window.open(..., "noopener")` answers null for a window it did open: not counted.
 * - Outside a privileged realm (no `wrappedJSObject`) nothing is installed; counts stay 0.
 * - Only `window.open` is seen: a blocked `target=_blank` link or form goes uncounted.
 */

/** Our realm's global that holds the count (read by `TAKE_BLOCKED_POPUPS_EXPRESSION`). */
export const POPUP_WATCH_GLOBAL = "__webbrainPopups";

export interface PopupWatch {
  /** Blocked `window.open` calls since the last take; resets to 0. */
  takeBlocked(): number;
}

interface WaivedWindow {
  open: unknown;
  Object: new () => Record<string, unknown>;
  Proxy: new (target: unknown, handler: object) => unknown;
  Function: new (...args: string[]) => (...args: unknown[]) => unknown;
}

type ScopeWithWatch = typeof globalThis & {
  [POPUP_WATCH_GLOBAL]?: PopupWatch;
  exportFunction?: (fn: (...args: never[]) => unknown, scope: object) => unknown;
};

const OPENS_WITHOUT_HANDLE = /\b(noopener|noreferrer)\b/i;

/** Installs the watch once per realm. Returns whether it is in place. */
export function installPopupWatch(win: Window): boolean {
  const scope = globalThis as ScopeWithWatch;
  if (scope[POPUP_WATCH_GLOBAL]) return true;
  const page = (win as unknown as { wrappedJSObject?: WaivedWindow }).wrappedJSObject;
  if (!page) return false;
  let blocked = 0;
  const recordNull = (features: unknown): void => {
    if (typeof features === "string" && OPENS_WITHOUT_HANDLE.test(features)) return;
    blocked += 1;
  };
  try {
    const handler = new page.Object();
    // A content script must export what the page's realm calls; a BiDi sandbox may hand it over.
    const exported = <F extends (...args: never[]) => unknown>(fn: F): unknown =>
      scope.exportFunction ? scope.exportFunction(fn, handler) : fn;
    handler.apply = pageRealmTrap(page, exported(recordNull)) ?? exported(ourRealmTrap(recordNull));
    page.open = new page.Proxy(page.open, handler);
  } catch {
    return false;
  }
  scope[POPUP_WATCH_GLOBAL] = {
    takeBlocked: () => {
      const count = blocked;
      blocked = 0;
      return count;
    },
  };
  return true;
}

/**
 * The trap built in the page's realm, so `window.open` runs with the page as its caller (the
 * popup blocker then judges the page's own call). Undefined when a CSP forbids building it.
 */
function pageRealmTrap(page: WaivedWindow, recordNull: unknown): unknown {
  try {
    const make = new page.Function(
      "recordNull",
      "const apply = Reflect.apply; return function (target, self, args) { const opened = apply(target, self, args); if (opened === null) { try { recordNull(args[2]); } catch (e) {} } return opened; };",
    );
    return make(recordNull);
  } catch {
    return undefined;
  }
}

function ourRealmTrap(recordNull: (features: unknown) => void) {
  return (target: (...a: unknown[]) => unknown, self: unknown, args: unknown[]): unknown => {
    const raw = (args as unknown as { wrappedJSObject?: unknown[] }).wrappedJSObject ?? args;
    const opened = Reflect.apply(target, self, raw);
    if (opened === null) {
      try {
        recordNull(raw[2]);
      } catch {
        // counting is best effort
      }
    }
    return opened;
  };
}
