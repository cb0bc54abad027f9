/**
 * Page dialogs (alert / confirm / prompt, and a "leave this page?" `beforeunload` the action's
 * navigation raises) opened while an agent action runs in this frame, and
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

import { followedLink } from "@webbrain/page/link-follow";
import {
  LINK_FOLLOWED_FIELD,
  type LinkFollowed,
  PAGE_LEFT_MESSAGE,
  type PageLeftMessage,
} from "./content-messages.js";

interface DialogRecord {
  type: "alert" | "confirm" | "prompt" | "beforeunload";
  message: string;
  answer: "accepted";
  text?: string;
}

type DialogFn = (message?: unknown, defaultValue?: unknown) => unknown;

interface PageDialogWindow {
  alert: DialogFn;
  confirm: DialogFn;
  prompt: DialogFn;
  BeforeUnloadEvent?: { prototype: object };
  Event: { prototype: { preventDefault: (this: object) => void } };
}

type ScopeWithExport = typeof globalThis & {
  exportFunction?: (fn: DialogFn, scope: object, options?: { defineAs: string }) => unknown;
  __webbrainPopups?: { takeBlocked(): number };
};

const records: DialogRecord[] = [];
/**
 * How long after an action a `beforeunload` is still that action's: Firefox starts the
 * navigation a link click asks for only after the click has returned.
 */
const LEAVE_WINDOW_MS = 3_000;
/** What Firefox's own "leave page?" prompt says (the runner reports that text over BiDi). */
const LEAVE_PROMPT_TEXT =
  "This page is asking you to confirm that you want to leave — information you’ve entered may not be saved.";
let leavingUntil = 0;
/** beforeunload events already recorded (a handler may both cancel and set returnValue). */
const leaveEvents = new WeakSet<object>();
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
  const define = (name: keyof typeof original, during: DialogFn) => {
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
  installLeaveWatch(page, scope);
}

/**
 * A page's "leave this page?" (`beforeunload`) during an agent action or just after it: the
 * page's request to ask (`preventDefault`, a non-empty `returnValue`) is answered "leave" at
 * once, as the runner's default policy accepts it, so Firefox opens no prompt that would hold
 * the run until a person answered it; it is reported in the action's `dialogs`, or, when the
 * navigation starts after the action returned, to the background page (PAGE_LEFT_MESSAGE).
 * Outside that window the person's own navigations get Firefox's prompt. A handler that only
 * returns a string (`onbeforeunload = () => "…"`) is not seen here: Firefox then still asks.
 */
function installLeaveWatch(page: PageDialogWindow, scope: ScopeWithExport): void {
  const proto = page.BeforeUnloadEvent?.prototype;
  if (!proto || !scope.exportFunction) return;
  const leaving = () => acting > 0 || performance.now() < leavingUntil;
  const note = (event: object) => {
    if (leaveEvents.has(event)) return;
    leaveEvents.add(event);
    const record: DialogRecord = { type: "beforeunload", message: LEAVE_PROMPT_TEXT, answer: "accepted" };
    if (acting > 0) records.push(record);
    else {
      const left: PageLeftMessage = { type: PAGE_LEFT_MESSAGE, dialog: describe(record) };
      void browser.runtime.sendMessage(left).catch(() => undefined);
    }
  };
  const preventDefault = page.Event.prototype.preventDefault;
  scope.exportFunction(
    function (this: object) {
      if (leaving()) note(this);
      else preventDefault.call(this);
    } as DialogFn,
    proto,
    { defineAs: "preventDefault" },
  );
  const returnValue = Object.getOwnPropertyDescriptor(proto, "returnValue");
  const { get, set } = returnValue ?? {};
  if (!get || !set || !scope.exportFunction) return;
  try {
    Object.defineProperty(proto, "returnValue", {
      configurable: true,
      enumerable: true,
      get: scope.exportFunction(
        function (this: object) {
          return get.call(this);
        } as DialogFn,
        page,
      ) as () => unknown,
      set: scope.exportFunction(
        function (this: object, value: unknown) {
          if (leaving() && text(value) !== "") note(this);
          else set.call(this, value);
        } as DialogFn,
        page,
      ) as (value: unknown) => void,
    });
  } catch {
    // Firefox refused to redefine it: preventDefault, the common way to ask, is still watched.
  }
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
    leavingUntil = performance.now() + LEAVE_WINDOW_MS;
  }
  if (typeof result !== "object" || result === null) return result;
  const out = result as Record<string, unknown>;
  const followed =
    acting === 0
      ? linkClicks.splice(0).flatMap((click) => {
          const where = followedLink(click.event, click.link, document);
          return where ? [{ ...click, where }] : [];
        })
      : [];
  if (followed.length > 0) {
    // A synthetic click gives no user activation, so Firefox's popup blocker refuses a link
    // that opens a new tab; the background page opens it as the trusted click would have.
    const blocked = followed.find(({ where, active }) => where === "tab" && !active);
    const report: LinkFollowed = blocked ? { blockedNewTab: blocked.link.href } : {};
    out[LINK_FOLLOWED_FIELD] = report;
  }
  if (acting === 0 && records.length > 0) out.dialogs = records.splice(0).map(describe);
  const blocked = (globalThis as ScopeWithExport).__webbrainPopups?.takeBlocked() ?? 0;
  if (blocked > 0) out.popups_blocked = blocked;
  return out;
}
