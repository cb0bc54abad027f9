import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "coinbase",
  name: "Coinbase",
  category: "finance",
  matches: ["*://*.coinbase.com/*"],
  advice:
    "Buy, Sell, Send and Convert open as dialogs with a preview step before they run. Crypto sent to a wrong address is lost: never send without an address the user gave in this conversation.",
  examples: {
    match: ["https://www.coinbase.com/home"],
    noMatch: ["https://coinbase.example.org/"],
  },
});
