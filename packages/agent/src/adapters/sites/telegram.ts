import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "telegram",
  name: "Telegram Web",
  category: "messaging",
  matches: ["*://web.telegram.org/*"],
  advice:
    "Chats are listed on the left; the open chat's title is in the header. Enter sends the message in the composer at the bottom. Versions /a/ and /k/ differ in layout; read the tree before acting.",
  examples: {
    match: ["https://web.telegram.org/a/#123"],
    noMatch: ["https://telegram.org/"],
  },
});
