import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "paypal",
  name: "PayPal",
  category: "finance",
  matches: ["*://*.paypal.com/*"],
  advice:
    "Send and Request start from the summary page; the recipient is an email or phone picker and the amount a field with a currency. A review page comes before money moves.",
  examples: {
    match: ["https://www.paypal.com/myaccount/summary"],
    noMatch: ["https://paypal.example.com/"],
  },
});
