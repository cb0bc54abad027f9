import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "washingtonpost",
  name: "The Washington Post",
  category: "news",
  matches: ["*://*.washingtonpost.com/*"],
  advice:
    "A metered subscription site: a wall replaces the article after the free ones. A consent dialog may cover the page at first: answer it before reading. Do not try to get around the wall.",
  examples: {
    match: ["https://www.washingtonpost.com/politics/2026/01/01/x/"],
    noMatch: ["https://washingtonpost.example.com/"],
  },
});
