import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "lever",
  name: "Lever job boards",
  category: "jobs",
  matches: ["*://jobs.lever.co/*", "*://jobs.eu.lever.co/*"],
  advice:
    "A posting's Apply button opens one form: résumé upload, contact details, links, then questions. Submit application sends it once.",
  examples: {
    match: ["https://jobs.lever.co/acme/123"],
    noMatch: ["https://www.lever.co/"],
  },
});
