import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "douyin",
  name: "Douyin",
  category: "messaging",
  matches: ["*://www.douyin.com/*", "*://douyin.com/*"],
  advice:
    "Videos play in a vertical feed that autoplays. Private messages are under /chat: the conversation list is the left rail and the open conversation's name is in the header above the messages. Sending is guarded: name the recipient in the task, and check the header before sending.",
  examples: {
    match: ["https://www.douyin.com/chat"],
    noMatch: ["https://www.tiktok.com/"],
  },
});
