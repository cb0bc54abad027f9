/**
 * wait_for_element and wait_for_stable. Waits are event-driven (MutationObserver) with a
 * polling backstop, and always end by their timeout with a typed `timeout` error.
 *
 * wait_for_stable: "stable" = no DOM mutation and no finished network request (Resource Timing)
 * for `quiet_ms` of watched time, and the document loaded. Page script in a sandbox cannot see
 * requests still in flight, so a long request with no DOM activity counts as quiet here; the
 * runner adds the in-flight fetch/XHR check from Firefox's network events
 * (runner/src/browser/network-activity.ts).
 *
 * Watched time: when the tab's process is starved of CPU (a loaded machine), our poll and the
 * page's own work stop together, and on waking our timer may run before the page's next
 * animation frame or late timer. A poll that slept far past what it asked for therefore did
 * not watch that stretch: the quiet window starts again after it instead of counting it.
 * A hidden document (a background tab, where scheduled jobs replay) is the exception: Firefox
 * holds its timers, ours and the page's alike, to about one a second and runs no animation
 * frames, so a late wake there is the rule and the page had no more chance to change than we
 * had to look.
 */
import type { PageCallParams } from "@webbrain/protocol";
import { collapseWhitespace } from "../dom-realm.js";
import { summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { PageState } from "../page-state.js";
import { type Answer, WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS } from "../protocol.js";
import { isRendered } from "../visibility.js";

export const STABLE_DEFAULT_QUIET_MS = 500;
const POLL_INTERVAL_MS = 100;
/**
 * How far past its time a poll may wake and still count as having watched: a loaded machine
 * wakes timers tens of ms late, which is noise; past this, a quarter of the default quiet window
 * went unseen.
 */
const LATE_WAKE_MS = 125;

type ElementState = "visible" | "attached" | "hidden" | "detached";

/**
 * Waits in progress in this realm, each with the function that ends it. The caller's Stop ends
 * them through `cancelWaits`: a caller that abandoned its call (the runner's BiDi command) cannot
 * otherwise reach a wait that would go on observing the page until its own timeout.
 */
const activeWaits = new Set<() => void>();

/** Ends every wait in progress (each fails with code `cancelled`); answers how many it ended. */
export function cancelWaits(): number {
  const ends = [...activeWaits];
  activeWaits.clear();
  for (const end of ends) end();
  return ends.length;
}

function cancelledError(action: string, elapsedMs: number): PageError {
  return new PageError("cancelled", `${action}: stopped by the caller after ${elapsedMs} ms.`, {
    elapsed_ms: elapsedMs,
  });
}

/** A wait's timeout: `timeout_ms`, or the `timeout` some callers write, else the default. */
function timeoutOf(p: { timeout_ms?: number | undefined; timeout?: number | undefined }): number {
  const timeout = p.timeout_ms ?? p.timeout ?? WAIT_DEFAULT_TIMEOUT_MS;
  if (timeout < 0 || timeout > WAIT_MAX_TIMEOUT_MS)
    throw new PageError(
      "bad_params",
      `"timeout_ms" must be between 0 and ${WAIT_MAX_TIMEOUT_MS}, got ${timeout}`,
    );
  return timeout;
}

function findBy(state: PageState, selector: string | undefined, text: string | undefined): Element[] {
  if (selector) {
    try {
      return Array.from(state.doc.querySelectorAll(selector));
    } catch {
      throw new PageError(
        "bad_params",
        `wait_for_element: ${JSON.stringify(selector)} is not a valid CSS selector.`,
      );
    }
  }
  const wanted = collapseWhitespace(text ?? "").toLowerCase();
  const found: Element[] = [];
  for (const el of Array.from(state.doc.body?.querySelectorAll("*") ?? [])) {
    if (el.childElementCount > 0 && !el.matches("button, a, label, [role]")) continue;
    if (
      collapseWhitespace(el.textContent ?? "")
        .toLowerCase()
        .includes(wanted)
    )
      found.push(el);
  }
  return found;
}

/**
 * Resolves when `check` returns a value, re-checking on DOM mutations and every poll interval;
 * `undefined` after the timeout; rejects with `onCancel()` when cancelWaits ends it.
 */
function waitUntil<T>(
  doc: Document,
  timeoutMs: number,
  check: () => T | undefined,
  onCancel: () => Error,
): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const first = check();
    if (first !== undefined) {
      resolve(first);
      return;
    }
    let done = false;
    const stop = () => {
      done = true;
      activeWaits.delete(cancel);
      observer.disconnect();
      clearInterval(poll);
      clearTimeout(timer);
    };
    const finish = (value: T | undefined) => {
      if (done) return;
      stop();
      resolve(value);
    };
    const cancel = () => {
      if (done) return;
      stop();
      reject(onCancel());
    };
    const retry = () => {
      const value = check();
      if (value !== undefined) finish(value);
    };
    const observer = new MutationObserver(retry);
    observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
    const poll = setInterval(retry, POLL_INTERVAL_MS);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    activeWaits.add(cancel);
  });
}

export async function waitForElement(
  state: PageState,
  p: PageCallParams<"wait_for_element">,
): Promise<Answer<"wait_for_element">> {
  const { selector, text } = p;
  if (!selector && !text) throw new PageError("bad_params", `wait_for_element: pass "selector" or "text".`);
  const wanted: ElementState = p.state ?? "visible";
  const timeout = timeoutOf(p);
  const started = performance.now();
  const found = await waitUntil(
    state.doc,
    timeout,
    () => {
      const all = findBy(state, selector, text);
      if (wanted === "attached") return all[0] ?? undefined;
      if (wanted === "visible") return all.find(isRendered);
      if (wanted === "detached") return all.length === 0 ? state.doc.documentElement : undefined;
      return all.every((el) => !isRendered(el)) ? state.doc.documentElement : undefined;
    },
    () => cancelledError("wait_for_element", Math.round(performance.now() - started)),
  );
  const elapsed = Math.round(performance.now() - started);
  const what = selector ? `selector ${JSON.stringify(selector)}` : `text ${JSON.stringify(text)}`;
  if (!found)
    throw new PageError(
      "timeout",
      `wait_for_element: ${what} did not become ${wanted} within ${timeout} ms.`,
      { elapsed_ms: elapsed },
    );
  const element = wanted === "visible" || wanted === "attached" ? { element: summarize(state, found) } : {};
  return { details: { state: wanted, elapsed_ms: elapsed, ...element } };
}

export async function waitForStable(
  state: PageState,
  p: PageCallParams<"wait_for_stable">,
): Promise<Answer<"wait_for_stable">> {
  const quiet = p.quiet_ms ?? STABLE_DEFAULT_QUIET_MS;
  const timeout = timeoutOf(p);
  const started = performance.now();
  // Where the quiet window starts: the last change seen, or the end of a stretch not watched.
  let quietSince = started;
  let mutations = 0;
  let requests = 0;
  let unwatchedMs = 0;
  const observer = new MutationObserver((records) => {
    mutations += records.length;
    quietSince = performance.now();
  });
  observer.observe(state.doc, { subtree: true, childList: true, attributes: true, characterData: true });
  let resources: PerformanceObserver | undefined;
  try {
    resources = new PerformanceObserver((list) => {
      requests += list.getEntries().length;
      quietSince = performance.now();
    });
    resources.observe({ type: "resource", buffered: false });
  } catch {
    resources = undefined;
  }
  // cancelWaits wakes the poll at once rather than at its next tick.
  let cancelled = false;
  let wake: (() => void) | undefined;
  const cancel = () => {
    cancelled = true;
    wake?.();
  };
  activeWaits.add(cancel);
  try {
    while (performance.now() - started < timeout) {
      const now = performance.now();
      if (state.doc.readyState === "complete" && now - quietSince >= quiet) {
        return { details: { stable: true, waited_ms: Math.round(now - started), mutations, requests } };
      }
      const asked = Math.min(POLL_INTERVAL_MS, quiet);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, asked);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (cancelled) throw cancelledError("wait_for_stable", Math.round(performance.now() - started));
      const woke = performance.now();
      const late = woke - now - asked;
      if (late > LATE_WAKE_MS && state.doc.visibilityState !== "hidden") {
        unwatchedMs += late;
        quietSince = Math.max(quietSince, woke);
      }
    }
  } finally {
    activeWaits.delete(cancel);
    observer.disconnect();
    resources?.disconnect();
  }
  throw new PageError("timeout", stableTimeoutMessage(timeout, quiet, mutations, requests, unwatchedMs), {
    stable: false,
    mutations,
    requests,
  });
}

/** Why no quiet window was found: the page's own changes, or a tab too starved to watch. */
function stableTimeoutMessage(
  timeout: number,
  quiet: number,
  mutations: number,
  requests: number,
  unwatchedMs: number,
): string {
  const seen = `${mutations} DOM changes, ${requests} requests finished`;
  if (mutations === 0 && requests === 0 && unwatchedMs > 0)
    return `wait_for_stable: could not watch the page for a quiet ${quiet} ms within ${timeout} ms: the tab was too busy to run its timers on time (${Math.round(unwatchedMs)} ms unwatched; ${seen}). The machine may be overloaded; read the page as it is, or wait again.`;
  return `wait_for_stable: the page kept changing for ${timeout} ms (${seen}). It may animate or poll forever; go on with a snapshot.`;
}
