import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "google-docs",
  name: "Google Docs",
  category: "productivity",
  matches: ["*://docs.google.com/document/*"],
  advice:
    "The document is drawn on a canvas, not a text field: click into the text, then type with press_keys; read it with read_page. Menus open with the accessible menu bar (File, Edit...). Comments live in the right margin.",
  examples: {
    match: ["https://docs.google.com/document/d/abc/edit"],
    noMatch: ["https://docs.google.com/spreadsheets/d/abc/edit"],
  },
});
