import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "reddit",
  name: "Reddit",
  category: "social",
  matches: ["*://*.reddit.com/*", "*://reddit.com/*"],
  advice:
    "www.reddit.com and old.reddit.com have different layouts; check which one you are on. Long comment threads hide replies behind 'more replies' links. Voting and posting need a logged-in account; the post form has Title, body and flair.",
  examples: {
    match: ["https://www.reddit.com/r/firefox/", "https://old.reddit.com/r/x/comments/1/"],
    noMatch: ["https://redditinc.com/"],
  },
});
