import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "teams",
  name: "Microsoft Teams",
  category: "messaging",
  matches: ["*://teams.microsoft.com/*", "*://teams.live.com/*"],
  advice:
    "Chat, Teams and Calendar are in the left rail. A chat's or channel's name is in the header; the composer is rich text and Enter sends. Channel posts and replies to them are separate threads.",
  examples: {
    match: ["https://teams.microsoft.com/v2/"],
    noMatch: ["https://www.microsoft.com/teams"],
  },
});
