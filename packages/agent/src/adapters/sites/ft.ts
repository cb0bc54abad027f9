import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "ft",
  name: "Financial Times",
  category: "news",
  matches: ["*://*.ft.com/*"],
  advice:
    "A subscription site; some articles are marked free to read near the headline, others stop at a wall. Do not try to get around it; report what is visible and offer alternatives.",
  examples: {
    match: ["https://www.ft.com/content/abc"],
    noMatch: ["https://soft.com/"],
  },
});
