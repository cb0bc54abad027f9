/**
 * What shows the person that an attached MCP client controls a tab: the toolbar button's badge
 * on that tab, and a bar across the top of its page. The bar is ignored by the pointer and by
 * the accessibility tree (aria-hidden), so it changes nothing the client reads or clicks; it is
 * put back after each load of the tab (background/main.ts), since a navigation drops it.
 */
import type { AttachMarks } from "./attach-broker.js";

export const AGENT_BAR_ID = "webbrain-agent-bar";
const BADGE_TEXT = "MCP";
const BADGE_COLOUR = "#b45309";

function barScript(text: string | undefined): string {
  const id = JSON.stringify(AGENT_BAR_ID);
  if (text === undefined) return `document.getElementById(${id})?.remove(); true;`;
  return `(() => {
    const bar = document.getElementById(${id}) ?? document.createElement("div");
    bar.id = ${id};
    bar.setAttribute("aria-hidden", "true");
    bar.textContent = ${JSON.stringify(text)};
    bar.style.cssText = "position:fixed;top:0;left:0;right:0;z-index:2147483647;pointer-events:none;background:${BADGE_COLOUR};color:#fff;font:13px/1.6 sans-serif;text-align:center;padding:2px 8px;opacity:0.92";
    (document.body ?? document.documentElement).append(bar);
    return true;
  })();`;
}

export function firefoxAttachMarks(barText: (name: string) => string): AttachMarks {
  // A tab the add-on cannot script (about: pages) keeps only the badge.
  const run = (tabId: number, code: string) =>
    void browser.tabs.executeScript(tabId, { code }).catch(() => undefined);
  return {
    show(tabId, name) {
      void browser.browserAction.setBadgeText({ tabId, text: BADGE_TEXT }).catch(() => undefined);
      void browser.browserAction
        .setBadgeBackgroundColor({ tabId, color: BADGE_COLOUR })
        .catch(() => undefined);
      run(tabId, barScript(barText(name)));
    },
    clear(tabId) {
      void browser.browserAction.setBadgeText({ tabId, text: "" }).catch(() => undefined);
      run(tabId, barScript(undefined));
    },
  };
}
