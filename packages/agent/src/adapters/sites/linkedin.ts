import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "linkedin",
  name: "LinkedIn",
  category: "social",
  matches: ["*://*.linkedin.com/*", "*://linkedin.com/*"],
  advice:
    "The feed and profiles load lazily as you scroll. Connect may ask whether to add a note: read the dialog. Messaging is at /messaging with a rich-text composer. Search results split into People, Posts, Jobs and Companies filters.",
  examples: {
    match: ["https://www.linkedin.com/in/someone/", "https://www.linkedin.com/feed/"],
    noMatch: ["https://www.linkedin.com/jobs/view/1/"],
  },
});
