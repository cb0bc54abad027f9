import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "etsy",
  name: "Etsy",
  category: "commerce",
  matches: ["*://*.etsy.com/*"],
  advice:
    "Listings often need options (size, colour, personalization text) chosen before Add to basket is enabled. Shop policies and shipping times are further down. Messages to sellers go through the listing's contact button.",
  examples: {
    match: ["https://www.etsy.com/listing/1/x"],
    noMatch: ["https://etsy.example.org/"],
  },
});
