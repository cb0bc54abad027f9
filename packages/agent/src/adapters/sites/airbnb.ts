import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "airbnb",
  name: "Airbnb",
  category: "travel",
  matches: ["*://*.airbnb.com/*", "*://*.airbnb.co.uk/*", "*://*.airbnb.de/*", "*://*.airbnb.fr/*"],
  advice:
    "Search opens panels for where, dates and guests; dates are picked on a two-month calendar. A listing's total with fees shows in the booking box after dates are set. Reserve leads to payment: stop there unless asked to book.",
  examples: {
    match: ["https://www.airbnb.com/rooms/1"],
    noMatch: ["https://airbnb.example.com/"],
  },
});
