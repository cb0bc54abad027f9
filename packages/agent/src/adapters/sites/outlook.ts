import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "outlook",
  name: "Outlook on the web",
  category: "productivity",
  matches: ["*://outlook.live.com/*", "*://outlook.office.com/*", "*://outlook.office365.com/*"],
  advice:
    "New mail opens in the reading pane or a pop-out: To is a picker that turns names into chips, the body is rich text. Send is at the top of the compose pane. The message list is virtualized: search instead of scrolling for old mail.",
  examples: {
    match: ["https://outlook.live.com/mail/0/inbox", "https://outlook.office.com/calendar/view/week"],
    noMatch: ["https://www.microsoft.com/outlook"],
  },
});
