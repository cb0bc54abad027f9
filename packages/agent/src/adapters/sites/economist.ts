import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "economist",
  name: "The Economist",
  category: "news",
  matches: ["*://*.economist.com/*"],
  advice:
    "A subscription site: most articles show a paragraph then a wall. Do not try to get around it; report what is visible and offer free coverage.",
  examples: {
    match: ["https://www.economist.com/leaders/2026/01/01/x"],
    noMatch: ["https://economist.example.com/"],
  },
});
