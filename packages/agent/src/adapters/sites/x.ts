import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "x",
  name: "X (Twitter)",
  category: "social",
  matches: ["*://x.com/*", "*://*.x.com/*", "*://twitter.com/*", "*://*.twitter.com/*"],
  advice:
    "The post composer is rich text with a character limit; Post is disabled past it. The timeline is virtualized: use search to find a post. Reply, repost, like and share are icon buttons under each post; repost opens a menu (Repost or Quote).",
  examples: {
    match: ["https://x.com/home", "https://twitter.com/user/status/1"],
    noMatch: ["https://xkcd.com/"],
  },
});
