import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "wsj",
  name: "The Wall Street Journal",
  category: "news",
  matches: ["*://*.wsj.com/*"],
  advice:
    "A subscription site: most articles show a short preview, then a subscriber wall. Do not try to get around it; report what is visible and offer free coverage, or ask the user to sign in.",
  examples: {
    match: ["https://www.wsj.com/articles/x-1"],
    noMatch: ["https://wsj.example.com/"],
  },
});
