import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "google-calendar",
  name: "Google Calendar",
  category: "productivity",
  matches: ["*://calendar.google.com/*"],
  advice:
    "Press c or click an empty slot to create an event; the quick popover has More options for the full editor. Guests is a picker. Saving an event with guests asks whether to notify them: read the dialog.",
  examples: {
    match: ["https://calendar.google.com/calendar/u/0/r/week"],
    noMatch: ["https://www.google.com/calendar/about/"],
  },
});
