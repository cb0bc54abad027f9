import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "facebook",
  name: "Facebook",
  category: "social",
  matches: ["*://*.facebook.com/*", "*://facebook.com/*"],
  advice:
    "The feed loads as you scroll and posts open in dialogs. The composer is rich text in a dialog; the audience selector sits above it: check it before posting. Many buttons are icon-only with a label on hover.",
  examples: {
    match: ["https://www.facebook.com/groups/1"],
    noMatch: ["https://www.facebook.com.evil.example/"],
  },
});
