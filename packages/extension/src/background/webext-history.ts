/**
 * The user's browsing history for search_history and get_history_visits, over `browser.history`.
 *
 * `history` is an optional permission (manifest `optional_permissions`): reading someone's
 * history is asked for when first needed, not at install. Firefox lets a page ask only while it
 * handles a person's click, and the background page never does, so the port hands the question
 * to the run (`PermissionAsker`): the sidebar shows it, and its Allow button calls
 * `browser.permissions.request` in its own click handler.
 *
 * Invariant: a refusal (or nobody to ask) is an answer, `{ success: false, error }` saying what
 * to do, never a thrown error: the model tells the person, and the run goes on.
 */
import type { HistoryAccess, HistoryQuery, PageResult, TabId } from "@webbrain/agent";

export const HISTORY_PERMISSION = "history";

/** Asks the person at this tab's sidebar to allow an optional permission; true once granted. */
export type PermissionAsker = (tabId: TabId, permission: string) => Promise<boolean>;

export const HISTORY_REFUSED =
  'The user has not allowed WebBrain to read the browsing history (Firefox permission "history"). Say that you need it to answer, or answer without it; do not call the history tools again in this task unless the user asks.';

function historyApi(): typeof browser.history | undefined {
  return (browser as { history?: typeof browser.history }).history;
}

const iso = (time: number | undefined) => (time === undefined ? null : new Date(time).toISOString());

export class WebExtHistory implements HistoryAccess {
  #ask: PermissionAsker | undefined;

  /** Who asks the person (the run manager, through the sidebar). */
  setPermissionAsker(ask: PermissionAsker): void {
    this.#ask = ask;
  }

  async #granted(tabId: TabId): Promise<typeof browser.history | undefined> {
    const has = () => browser.permissions.contains({ permissions: [HISTORY_PERMISSION] });
    if (await has()) return historyApi();
    // Asked at every call without the permission: the refusal tells the model not to retry, and
    // a person who changes their mind and asks again gets the question again.
    if (!this.#ask) return undefined;
    const allowed = (await this.#ask(tabId, HISTORY_PERMISSION)) && (await has());
    return allowed ? historyApi() : undefined;
  }

  async searchHistory(tabId: TabId, query: HistoryQuery): Promise<PageResult> {
    const api = await this.#granted(tabId);
    if (!api) return { success: false, error: HISTORY_REFUSED };
    const items = await api.search({
      text: query.text,
      ...(query.startTime !== undefined ? { startTime: query.startTime } : {}),
      ...(query.endTime !== undefined ? { endTime: query.endTime } : {}),
      ...(query.maxResults !== undefined ? { maxResults: query.maxResults } : {}),
    });
    const pages = items
      .filter((item) => item.url)
      .map((item) => ({
        url: item.url ?? "",
        title: item.title ?? "",
        lastVisit: iso(item.lastVisitTime),
        visitCount: item.visitCount ?? 0,
      }));
    return { success: true, pages };
  }

  async historyVisits(tabId: TabId, url: string): Promise<PageResult> {
    const api = await this.#granted(tabId);
    if (!api) return { success: false, error: HISTORY_REFUSED };
    const visits = (await api.getVisits({ url }))
      .sort((a, b) => (b.visitTime ?? 0) - (a.visitTime ?? 0))
      .slice(0, 50)
      .map((visit) => ({ time: iso(visit.visitTime), transition: visit.transition }));
    return { success: true, url, visits };
  }
}
