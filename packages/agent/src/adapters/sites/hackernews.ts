import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "hackernews",
  name: "Hacker News",
  category: "code",
  matches: ["*://news.ycombinator.com/*"],
  advice:
    "A plain table layout: comment depth is shown by indentation only. Long threads continue on a More link at the bottom. Voting, replying and submitting need a logged-in account.",
  examples: {
    match: ["https://news.ycombinator.com/item?id=1"],
    noMatch: ["https://ycombinator.com/companies"],
  },
});
