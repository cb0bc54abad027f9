/**
 * Sends one message to the content script of one frame of a tab and answers its JSON result.
 *
 * Invariants:
 * - A frame without the content script (a tab opened before install, a restored tab) gets the
 *   page script and glue injected once into that frame and the message sent again.
 * - Pages Firefox forbids to add-ons answer `{success: false}` with a sentence saying so; a frame
 *   that went away answers a sentence too. Only a closed tab throws (from `tabs.get`).
 * - Every answer is a PageResult: an answer that is not an object with `success` becomes a failure.
 * - A message is sent twice only to a frame that had no content script: when the frame started
 *   a navigation while the message was out (a click that submits a form), the old document got
 *   it and went away before answering; sending it again would repeat the action in the new
 *   document (a stale ref at best), so the answer says the page navigated instead.
 */
import type { PageResult } from "@webbrain/agent";

const PAGE_SCRIPT_FILES = ["/page-script.js", "/content.js"];

export const TOP_FRAME_ID = 0;

/** Navigations started per frame (`tabId:frameId`), counted from webNavigation.onBeforeNavigate. */
const navigationsStarted = new Map<string, number>();
let countingNavigations = false;

function navigationsOf(tabId: number, frameId: number): number {
  if (!countingNavigations) {
    countingNavigations = true;
    browser.webNavigation.onBeforeNavigate.addListener(({ tabId: tab, frameId: frame }) => {
      const key = `${tab}:${frame}`;
      navigationsStarted.set(key, (navigationsStarted.get(key) ?? 0) + 1);
    });
    browser.tabs.onRemoved.addListener((tab) => {
      for (const key of navigationsStarted.keys())
        if (key.startsWith(`${tab}:`)) navigationsStarted.delete(key);
    });
  }
  return navigationsStarted.get(`${tabId}:${frameId}`) ?? 0;
}

function isMissingReceiver(error: unknown): boolean {
  return (
    error instanceof Error &&
    /Receiving end does not exist|Could not establish connection/i.test(error.message)
  );
}

function asPageResult(answer: unknown, what: string): PageResult {
  if (typeof answer === "object" && answer !== null && typeof (answer as PageResult).success === "boolean")
    return answer as PageResult;
  return { success: false, error: `The page did not answer ${what}; reload the page and retry.` };
}

export async function sendToFrame(
  tabId: number,
  frameId: number,
  message: unknown,
  what: string,
): Promise<PageResult> {
  const navigationsBefore = navigationsOf(tabId, frameId);
  try {
    return asPageResult(await browser.tabs.sendMessage(tabId, message, { frameId }), what);
  } catch (error) {
    if (!isMissingReceiver(error)) {
      return { success: false, error: `The page did not answer ${what}: ${(error as Error).message}` };
    }
  }
  if (navigationsOf(tabId, frameId) !== navigationsBefore) {
    return {
      success: true,
      navigated: true,
      note: `The page went to a new document while ${what} ran, before it answered: read the page to see the result.`,
    };
  }
  try {
    for (const file of PAGE_SCRIPT_FILES)
      await browser.tabs.executeScript(tabId, { file, frameId, runAt: "document_idle" });
  } catch {
    if (frameId !== TOP_FRAME_ID) {
      return {
        success: false,
        error:
          "That frame is gone or Firefox does not let add-ons script it; list the frames again (get_frames).",
      };
    }
    const tab = await browser.tabs.get(tabId);
    return {
      success: false,
      error: `WebBrain cannot read or control ${tab.url || "this page"}: Firefox does not let add-ons script it (about:, view-source:, addons.mozilla.org and PDF pages). Navigate to a regular web page.`,
    };
  }
  try {
    return asPageResult(await browser.tabs.sendMessage(tabId, message, { frameId }), what);
  } catch (error) {
    return { success: false, error: `The page did not answer ${what}: ${(error as Error).message}` };
  }
}
