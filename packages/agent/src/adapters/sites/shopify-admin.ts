import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "shopify-admin",
  name: "Shopify admin",
  category: "commerce",
  matches: ["*://admin.shopify.com/*", "*://*.myshopify.com/admin/*"],
  advice:
    "Products, Orders and Customers are in the left navigation. Product forms save through a Save bar at the top that appears after any change: a form is not saved until you press it. Refunds and order edits move money: confirm amounts with the user.",
  examples: {
    match: ["https://admin.shopify.com/store/x/products/1", "https://x.myshopify.com/admin/orders"],
    noMatch: ["https://www.shopify.com/"],
  },
});
