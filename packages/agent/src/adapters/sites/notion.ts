import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "notion",
  name: "Notion",
  category: "productivity",
  matches: ["*://www.notion.so/*", "*://notion.so/*", "*://*.notion.site/*"],
  advice:
    "Every block is its own editable; Enter makes a new block and / opens the block menu. Database views are virtualized: use the view's search and filters rather than scrolling. Page properties sit above the body.",
  examples: {
    match: ["https://www.notion.so/team/Page-123", "https://acme.notion.site/Doc"],
    noMatch: ["https://notion.com/pricing"],
  },
});
