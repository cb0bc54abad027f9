import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "wise",
  name: "Wise",
  category: "finance",
  matches: ["*://wise.com/*"],
  advice:
    "A transfer is a wizard: amount and currencies, recipient, review, pay. The rate is locked for a limited time on the review step. Recipients are saved accounts; check name and bank details.",
  examples: {
    match: ["https://wise.com/send"],
    noMatch: ["https://wise.example.com/"],
  },
});
