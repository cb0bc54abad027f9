import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "trello",
  name: "Trello",
  category: "productivity",
  matches: ["*://trello.com/*"],
  advice:
    "A board is columns of cards; a card opens as a dialog with description, checklists and an Actions list (move, copy, archive). Add a card at the bottom of a list; moving by drag is fragile, use the card's Move action.",
  examples: {
    match: ["https://trello.com/b/abc/board"],
    noMatch: ["https://atlassian.com/trello"],
  },
});
