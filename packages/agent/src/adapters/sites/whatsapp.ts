import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "whatsapp",
  name: "WhatsApp Web",
  category: "messaging",
  matches: ["*://web.whatsapp.com/*"],
  advice:
    "Chats are a list on the left with a search box; the open chat's name is in the header above the messages. The composer is at the bottom and Enter sends at once: check the header names the intended person before typing.",
  examples: {
    match: ["https://web.whatsapp.com/"],
    noMatch: ["https://www.whatsapp.com/"],
  },
});
