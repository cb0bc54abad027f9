import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "booking",
  name: "Booking.com",
  category: "travel",
  matches: ["*://*.booking.com/*"],
  advice:
    "Search takes destination, dates from a calendar and guests; results can be filtered and sorted. Prices change with dates and room choice; the final price shows only near the end. Stop before the final booking step unless the user asked to book.",
  examples: {
    match: ["https://www.booking.com/searchresults.html?ss=Paris"],
    noMatch: ["https://booking.example.com/"],
  },
});
