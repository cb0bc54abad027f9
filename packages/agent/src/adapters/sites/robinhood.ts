import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "robinhood",
  name: "Robinhood",
  category: "finance",
  matches: ["*://robinhood.com/*"],
  advice:
    "A stock page's order panel has the order type (market, limit), amount in shares or dollars, and a Review step before Submit. Orders can run outside market hours with different rules.",
  examples: {
    match: ["https://robinhood.com/stocks/AAPL"],
    noMatch: ["https://robinhood.example.com/"],
  },
});
