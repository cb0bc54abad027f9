/**
 * A scheduled run that hands over to a person (pause_for_user) may find nobody at the sidebar:
 * a browser notification says the run waits for them, and clicking it brings the run's tab to
 * the front (its sidebar shows the take-over card). One notification per tab, cleared when the
 * wait ends either way.
 */
import { t } from "../shared/i18n.js";

const ID_PREFIX = "webbrain-person-";

export interface PersonNotifications {
  notify(tabId: string, reason: string): void;
  clear(tabId: string): void;
}

export function browserPersonNotifications(): PersonNotifications {
  browser.notifications.onClicked.addListener((id) => {
    if (!id.startsWith(ID_PREFIX)) return;
    const tabId = Number(id.slice(ID_PREFIX.length));
    void browser.tabs.update(tabId, { active: true }).catch(() => undefined);
  });
  const report = (error: unknown) => console.error("WebBrain: notification failed", error);
  return {
    notify(tabId, reason) {
      void browser.notifications
        .create(`${ID_PREFIX}${tabId}`, {
          type: "basic",
          title: t("notifyPersonTitle"),
          message: t("notifyPersonMessage", reason),
          iconUrl: browser.runtime.getURL("icons/webbrain.svg"),
        })
        .catch(report);
    },
    clear(tabId) {
      void browser.notifications.clear(`${ID_PREFIX}${tabId}`).catch(report);
    },
  };
}
