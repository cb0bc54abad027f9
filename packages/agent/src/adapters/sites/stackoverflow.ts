import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "stackoverflow",
  name: "Stack Overflow",
  category: "code",
  matches: [
    "*://stackoverflow.com/*",
    "*://*.stackoverflow.com/*",
    "*://*.stackexchange.com/*",
    "*://superuser.com/*",
    "*://serverfault.com/*",
  ],
  advice:
    "Answers are sorted by votes; the accepted one carries a check mark and may not be the top one. Keep code blocks' indentation exactly when you copy them. Comments under each post are collapsed after a few: expand them before quoting.",
  examples: {
    match: [
      "https://stackoverflow.com/questions/1/x",
      "https://unix.stackexchange.com/q/2",
      "https://superuser.com/q/3",
    ],
    noMatch: ["https://stackoverflow.blog/2024/"],
  },
});
