import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "expedia",
  name: "Expedia",
  category: "travel",
  matches: ["*://*.expedia.com/*", "*://*.expedia.co.uk/*", "*://*.expedia.de/*"],
  advice:
    "Stays, Flights, Cars and Packages are tabs with their own forms; places are typeahead pickers and dates a calendar dialog with a Done button. Results are long and load more as you scroll. Stop before payment unless asked to book.",
  examples: {
    match: ["https://www.expedia.com/Hotel-Search?destination=Rome"],
    noMatch: ["https://expedia.example.com/"],
  },
});
