/**
 * Page dialogs (alert / confirm / prompt) opened while an agent action runs in this frame, and
 * popups the popup blocker refused, as the runner reports them (runner `dialog-handler.ts`,
 * `action-side-effects.ts`): `dialogs: ['confirm "Delete?" -> accepted']`, `popups_blocked: N`.
 *
 * Why here: no WebExtension API tells an add-on about a page's dialogs, and a dialog opened by
 * the content script's synthetic click would hold that click (and the run) until a person
 * answers it. So the page's `alert`, `confirm` and `prompt` are replaced (exportFunction, the
 * page's own window) by functions that, during an action, answer at once as the runner's default
 * policy does (alert accepted, confirm accepted, prompt accepted with its default value) and
 * record it; outside actions they call Firefox's own, so the person's own clicks see real
 * dialogs.
 *
 * It also tells the background page when the action followed a link (a click on `<a href>`
 * that the page did not cancel): Firefox starts that navigation, download or new tab only after
 * the click has returned, so the background waits for it to begin (action-side-effects.ts).
 *
 * Invariants:
 * - Installed once per frame; the page cannot read or clear the records (they live here).
 * - A page that kept its own reference to `alert` before this ran bypasses the watch: its
 *   dialog then shows as Firefox's, unrecorded.
 */

import { LINK_FOLLOWED_FIELD, type LinkFollowed } from "./content-messages.js";

interface DialogRecord {
  type: "alert" | "confirm" | "prompt";
  message: string;
  answer: "accepted";
  text?: string;
}

type DialogFn = (message?: unknown, defaultValue?: unknown) => unknown;

interface PageDialogWindow {
  alert: DialogFn;
  confirm: DialogFn;
  prompt: DialogFn;
}

type ScopeWithExport = typeof globalThis & {
  exportFunction?: (fn: DialogFn, scope: object, options: { defineAs: string }) => unknown;
  __webbrainPopups?: { takeBlocked(): number };
};

const records: DialogRecord[] = [];
/** Clicks on links during actions; whether each was followed is known once the action ends. */
const linkClicks: { event: Event; link: HTMLAnchorElement; active: boolean }[] = [];
let acting = 0;
let installed = false;

function text(value: unknown): string {
  return value === undefined ? "" : String(value);
}

export function installDialogWatch(): void {
  const scope = globalThis as ScopeWithExport;
  const page = (window as unknown as { wrappedJSObject?: PageDialogWindow }).wrappedJSObject;
  if (installed || !page || !scope.exportFunction) return;
  installed = true;
  window.addEventListener(
    "click",
    (event) => {
      const target = event.target as Element | null;
      const link = acting > 0 ? target?.closest?.("a[href], area[href]") : null;
      if (link)
        linkClicks.push({
          event,
          link: link as HTMLAnchorElement,
          active: (navigator as { userActivation?: { isActive: boolean } }).userActivation?.isActive === true,
        });
    },
    true,
  );
  const original = { alert: page.alert, confirm: page.confirm, prompt: page.prompt };
  const define = (name: keyof PageDialogWindow, during: DialogFn) => {
    scope.exportFunction?.(
      (message, defaultValue) =>
        acting > 0 ? during(message, defaultValue) : original[name].call(page, message, defaultValue),
      page,
      { defineAs: name },
    );
  };
  define("alert", (message) => {
    records.push({ type: "alert", message: text(message), answer: "accepted" });
    return undefined;
  });
  define("confirm", (message) => {
    records.push({ type: "confirm", message: text(message), answer: "accepted" });
    return true;
  });
  define("prompt", (message, defaultValue) => {
    const answer = text(defaultValue);
    records.push({ type: "prompt", message: text(message), answer: "accepted", text: answer });
    return answer;
  });
}

/** A link click the page did not cancel that leaves the document (not `#x`, not `javascript:`). */
function followsLink(event: Event, link: HTMLAnchorElement): boolean {
  if (event.defaultPrevented) return false;
  let url: URL;
  try {
    url = new URL(link.href);
  } catch {
    return false;
  }
  if (url.protocol === "javascript:") return false;
  const here = new URL(location.href);
  const sameDocument = url.hash !== "" && url.href.split("#")[0] === here.href.split("#")[0];
  return !sameDocument || link.hasAttribute("download") || link.target !== "";
}

function opensNewTab(link: HTMLAnchorElement): boolean {
  const target = link.target.toLowerCase();
  return (
    target !== "" &&
    target !== "_self" &&
    target !== "_parent" &&
    target !== "_top" &&
    !link.hasAttribute("download")
  );
}

/** The runner's wording (`describeDialogs`). */
function describe(record: DialogRecord): string {
  const entered = record.text !== undefined ? ` with "${record.text}"` : "";
  return `${record.type} ${JSON.stringify(record.message)} -> ${record.answer}${entered}`;
}

/**
 * Runs one action with dialogs answered and recorded, and adds to its result what it opened:
 * `dialogs` and `popups_blocked` (the page layer's popup watch, read and reset here), each only
 * when there was any.
 */
export async function withPageEffects(run: () => Promise<unknown>): Promise<unknown> {
  acting += 1;
  let result: unknown;
  try {
    result = await run();
  } finally {
    acting -= 1;
  }
  if (typeof result !== "object" || result === null) return result;
  const out = result as Record<string, unknown>;
  const followed =
    acting === 0 ? linkClicks.splice(0).filter(({ event, link }) => followsLink(event, link)) : [];
  if (followed.length > 0) {
    // A synthetic click gives no user activation, so Firefox's popup blocker refuses a link
    // that opens a new tab; the background page opens it as the trusted click would have.
    const blocked = followed.find(({ link, active }) => opensNewTab(link) && !active);
    const report: LinkFollowed = blocked ? { blockedNewTab: blocked.link.href } : {};
    out[LINK_FOLLOWED_FIELD] = report;
  }
  if (acting === 0 && records.length > 0) out.dialogs = records.splice(0).map(describe);
  const blocked = (globalThis as ScopeWithExport).__webbrainPopups?.takeBlocked() ?? 0;
  if (blocked > 0) out.popups_blocked = blocked;
  return out;
}
