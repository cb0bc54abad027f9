import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "glassdoor",
  name: "Glassdoor",
  category: "jobs",
  matches: ["*://*.glassdoor.com/*", "*://*.glassdoor.co.uk/*"],
  advice:
    "Reviews, salaries and jobs are separate tabs per company. A sign-in wall often covers content after a few views: report it rather than working around it.",
  examples: {
    match: ["https://www.glassdoor.com/Reviews/x.htm"],
    noMatch: ["https://glassdoor.example.com/"],
  },
});
