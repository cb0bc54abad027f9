import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "ebay",
  name: "eBay",
  category: "commerce",
  matches: ["*://*.ebay.com/*", "*://*.ebay.co.uk/*", "*://*.ebay.de/*"],
  advice:
    "A listing is either an auction (Place bid, with a time left) or Buy It Now; some accept offers. Bids are binding: never bid or buy unless asked with a price. Item specifics and the seller's return policy are lower on the listing.",
  examples: {
    match: ["https://www.ebay.com/itm/1"],
    noMatch: ["https://ebay.example.com/"],
  },
});
