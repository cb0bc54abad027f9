import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "bank",
  name: "Online banking",
  category: "finance",
  matches: [
    "*://*.chase.com/*",
    "*://*.bankofamerica.com/*",
    "*://*.wellsfargo.com/*",
    "*://*.citi.com/*",
    "*://*.hsbc.com/*",
    "*://*.hsbc.co.uk/*",
    "*://*.barclays.co.uk/*",
    "*://*.santander.co.uk/*",
    "*://*.revolut.com/*",
    "*://*.n26.com/*",
    "*://*.monzo.com/*",
    "*://*.schwab.com/*",
    "*://*.fidelity.com/*",
    "*://*.vanguard.com/*",
  ],
  advice:
    "Banking sites time out idle sessions and may ask for a second factor at any step. For balances and statements, read and stop; do not press action buttons you were not asked to press.",
  examples: {
    match: ["https://secure.chase.com/web/auth/dashboard", "https://app.revolut.com/home"],
    noMatch: ["https://www.chasebank.example/"],
  },
});
