import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "bloomberg",
  name: "Bloomberg",
  category: "news",
  matches: ["*://*.bloomberg.com/*"],
  advice:
    "Articles fade into a subscription wall after a preview, and a robot check may appear first: if it does, stop and tell the user. Do not try to get around either.",
  examples: {
    match: ["https://www.bloomberg.com/news/articles/x"],
    noMatch: ["https://bloomberg.example.com/"],
  },
});
