import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "google-flights",
  name: "Google Flights",
  category: "travel",
  matches: ["*://www.google.com/travel/flights*", "*://www.google.com/flights*"],
  advice:
    "Trip type, passengers and class are dropdowns above the form; From and To are pickers; dates open a calendar with a Done button. Results list the best flights first, then others; a flight expands to its legs. Booking happens on the airline's or agent's site.",
  examples: {
    match: [
      "https://www.google.com/travel/flights?q=x",
      "https://www.google.com/travel/flights/search?tfs=1",
    ],
    noMatch: ["https://www.google.com/search?q=flights"],
  },
});
