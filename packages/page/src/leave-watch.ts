/**
 * Notes when this document is asked to unload (`beforeunload`), so an action's answer can say
 * the page is being left: Firefox answers a page's "leave this page?" prompt and only then starts
 * the navigation, after the click that caused it has been read back in the old document.
 * Listening changes nothing for the page (no preventDefault, no returnValue).
 */
const LEAVING_RECENT_MS = 2_000;
let leavingAt: number | undefined;
/**
 * The document that was asked to unload. A frame's initial about:blank hands its Window (and
 * this realm) to the same-origin document that replaces it, so the unload of about:blank would
 * otherwise say "leaving" about the new document, which stays.
 */
let leavingDocument: Document | undefined;
let watchedWindow: Window | undefined;

export function installLeaveWatch(win: Window): void {
  if (watchedWindow) return;
  watchedWindow = win;
  try {
    win.addEventListener(
      "beforeunload",
      () => {
        leavingAt = performance.now();
        leavingDocument = win.document;
      },
      { capture: true },
    );
  } catch {
    // A realm that cannot listen on the window just never says "leaving".
  }
}

/** Whether the document was asked to unload in the last moments and is still here. */
export function leavingRecently(): boolean {
  return (
    leavingAt !== undefined &&
    performance.now() - leavingAt < LEAVING_RECENT_MS &&
    leavingDocument === watchedWindow?.document
  );
}
