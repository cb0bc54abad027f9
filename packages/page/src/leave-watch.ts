/**
 * Notes when this document is asked to unload (`beforeunload`), so an action's answer can say
 * the page is being left: Firefox answers a page's "leave this page?" prompt and only then starts
 * the navigation, after the click that caused it has been read back in the old document.
 * Listening changes nothing for the page (no preventDefault, no returnValue).
 */
const LEAVING_RECENT_MS = 2_000;
let leavingAt: number | undefined;
let installed = false;

export function installLeaveWatch(win: Window): void {
  if (installed) return;
  installed = true;
  try {
    win.addEventListener(
      "beforeunload",
      () => {
        leavingAt = performance.now();
      },
      { capture: true },
    );
  } catch {
    // A realm that cannot listen on the window just never says "leaving".
  }
}

/** Whether the document was asked to unload in the last moments and is still here. */
export function leavingRecently(): boolean {
  return leavingAt !== undefined && performance.now() - leavingAt < LEAVING_RECENT_MS;
}
