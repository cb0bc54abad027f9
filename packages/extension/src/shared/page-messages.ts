/**
 * The message the background page sends a tab's content script to run one page action
 * through the page script (`globalThis.__webbrainPage.handle`, @webbrain/page).
 */
export const PAGE_ACTION_MESSAGE = "webbrain_page_action";

export interface PageActionMessage {
  type: typeof PAGE_ACTION_MESSAGE;
  action: string;
  params: Record<string, unknown>;
}

export function isPageActionMessage(value: unknown): value is PageActionMessage {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Partial<PageActionMessage>;
  return (
    message.type === PAGE_ACTION_MESSAGE &&
    typeof message.action === "string" &&
    typeof message.params === "object" &&
    message.params !== null
  );
}
