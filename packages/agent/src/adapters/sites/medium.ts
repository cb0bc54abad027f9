import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "medium",
  name: "Medium",
  category: "social",
  matches: ["*://medium.com/*", "*://*.medium.com/*"],
  advice:
    "Member-only stories stop partway with a sign-up or upgrade prompt: that is the paywall, not the end of the story. Clap is a button that counts each click up to 50.",
  examples: {
    match: ["https://medium.com/@u/story-1", "https://blog.medium.com/x"],
    noMatch: ["https://mediumrare.example/"],
  },
});
