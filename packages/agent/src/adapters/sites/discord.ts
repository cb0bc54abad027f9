import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "discord",
  name: "Discord",
  category: "messaging",
  matches: ["*://discord.com/*", "*://*.discord.com/*"],
  advice:
    "Servers are icons on the far left, channels in the next column, messages in the middle. The composer is rich text and Enter sends. Direct messages start from the Home icon. Check the channel name in the header before sending.",
  examples: {
    match: ["https://discord.com/channels/1/2"],
    noMatch: ["https://discord.gg.example/"],
  },
});
