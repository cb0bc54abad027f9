import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "instagram",
  name: "Instagram",
  category: "social",
  matches: ["*://www.instagram.com/*", "*://instagram.com/*"],
  advice:
    "Posts open as dialogs over the grid; Like, Comment, Share and Save are icon buttons under the image. Direct messages are at /direct/inbox. Creating a post is a multi-step dialog (select, crop, caption, Share).",
  examples: {
    match: ["https://www.instagram.com/p/abc/"],
    noMatch: ["https://about.instagram.com/"],
  },
});
