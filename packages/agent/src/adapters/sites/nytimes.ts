import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "nytimes",
  name: "The New York Times",
  category: "news",
  matches: ["*://*.nytimes.com/*"],
  advice:
    "A subscription site: after a few paragraphs a subscribe or log-in wall may cover the article. Do not try to get around it; report what is visible and offer free coverage of the same story, or ask the user to sign in.",
  examples: {
    match: ["https://www.nytimes.com/2026/01/01/world/x.html"],
    noMatch: ["https://nytimes.example.com/"],
  },
});
