import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "workday",
  name: "Workday careers",
  category: "jobs",
  matches: ["*://*.myworkdayjobs.com/*"],
  advice:
    "Applying is a long wizard (account, my information, experience, questions, review) with Save and Continue on each step; sessions expire. Résumé upload may prefill fields: check them. Submit only when asked to apply.",
  examples: {
    match: ["https://acme.wd5.myworkdayjobs.com/en-US/careers/job/x"],
    noMatch: ["https://www.workday.com/"],
  },
});
