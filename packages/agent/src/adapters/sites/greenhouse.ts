import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "greenhouse",
  name: "Greenhouse job boards",
  category: "jobs",
  matches: ["*://boards.greenhouse.io/*", "*://job-boards.greenhouse.io/*"],
  advice:
    "A job page ends with one application form: name, email, résumé upload, then custom questions (some are dropdowns). Required fields are marked; Submit application sends it once.",
  examples: {
    match: ["https://boards.greenhouse.io/acme/jobs/1"],
    noMatch: ["https://www.greenhouse.com/"],
  },
});
