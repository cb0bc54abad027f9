import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "walmart",
  name: "Walmart",
  category: "commerce",
  matches: ["*://*.walmart.com/*"],
  advice:
    "Items offer shipping, pickup or delivery as separate choices; check which is selected before adding to the cart. Third-party sellers are named under the price. Stop before placing an order unless the user asked to buy.",
  examples: {
    match: ["https://www.walmart.com/ip/1"],
    noMatch: ["https://walmart.example.net/"],
  },
});
