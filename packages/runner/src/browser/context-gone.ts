/**
 * The errors a wait on a browsing context ends with once the context is gone. A tab's is
 * TabGoneError, which the port treats as fatal for the call (page-result.ts `isFatal`): the
 * model is told to list the tabs and pick another. A frame's is FrameGoneError: frames come and
 * go with their page's navigations, so the tab may still be fine.
 */

export class TabGoneError extends Error {
  override readonly name = "TabGoneError";
}

export class FrameGoneError extends Error {
  override readonly name = "FrameGoneError";
}

/** The message every closed-tab error carries (the port's and the model's alike). */
export function tabClosedMessage(tabId: string): string {
  return `Tab ${tabId} is closed; list the tabs and pick another.`;
}

/** The error for a context that is gone: `top` tells a tab from a frame. */
export function contextGoneError(id: string, top: boolean, reason: string): TabGoneError | FrameGoneError {
  return top
    ? new TabGoneError(tabClosedMessage(id))
    : new FrameGoneError(`Frame ${id} is gone (${reason}); read the page again for its frames.`);
}
