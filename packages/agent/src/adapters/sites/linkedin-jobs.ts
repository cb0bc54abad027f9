import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "linkedin-jobs",
  name: "LinkedIn Jobs",
  category: "jobs",
  matches: ["*://www.linkedin.com/jobs/*"],
  advice:
    "Results are a list on the left with the selected job's details on the right. Easy Apply opens a multi-step dialog (contact, résumé, questions, review); Submit sends the application: only when the user asked to apply. Other jobs apply on the company's site.",
  examples: {
    match: ["https://www.linkedin.com/jobs/view/1/", "https://www.linkedin.com/jobs/search/?keywords=x"],
    noMatch: ["https://www.linkedin.com/in/x/"],
  },
});
