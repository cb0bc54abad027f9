import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "stripe",
  name: "Stripe dashboard",
  category: "finance",
  matches: ["*://dashboard.stripe.com/*"],
  advice:
    "The test-mode toggle decides whether money is real: check it before creating, refunding or cancelling. Billing period and currency are comboboxes: set them with set_field submit:true and re-read the tree. Product creation opens a form over the catalogue: act only inside it.",
  examples: {
    match: ["https://dashboard.stripe.com/products"],
    noMatch: ["https://stripe.com/docs"],
  },
});
