import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "substack",
  name: "Substack",
  category: "social",
  matches: ["*://*.substack.com/*"],
  advice:
    "Posts can be free or cut off with a Subscribe box partway: treat that as a paywall. Comments are below the post. Subscribing asks for an email and may send a confirmation.",
  examples: {
    match: ["https://someone.substack.com/p/post"],
    noMatch: ["https://substack.example.com/"],
  },
});
