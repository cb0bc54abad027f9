import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "indeed",
  name: "Indeed",
  category: "jobs",
  matches: ["*://*.indeed.com/*"],
  advice:
    "Search takes what and where; results list on the left, details on the right. Apply either runs Indeed's own form (résumé, questions, review) or leaves for the company's site. Submit only when asked to apply.",
  examples: {
    match: ["https://www.indeed.com/jobs?q=x", "https://uk.indeed.com/viewjob?jk=1"],
    noMatch: ["https://indeed.example.com/"],
  },
});
