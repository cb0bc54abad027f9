import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "slack",
  name: "Slack",
  category: "messaging",
  matches: ["*://app.slack.com/*", "*://*.slack.com/*"],
  advice:
    "Messages are a virtualized list: scroll to load older ones, or search. The composer is rich text; Enter sends and Shift+Enter adds a line. @mentions and #channels open pickers chosen with the keyboard. Replies in a thread open in a side panel and are separate from the channel.",
  examples: {
    match: ["https://app.slack.com/client/T1/C1", "https://acme.slack.com/archives/C1"],
    noMatch: ["https://slack.dev.example/"],
  },
});
