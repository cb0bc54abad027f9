import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "google-sheets",
  name: "Google Sheets",
  category: "productivity",
  matches: ["*://docs.google.com/spreadsheets/*"],
  advice:
    "The grid is a canvas: select a cell with the Name box (top left, type A1 and Enter), then type and press Enter; the formula bar shows the cell's content. Sheets are tabs along the bottom.",
  examples: {
    match: ["https://docs.google.com/spreadsheets/d/abc/edit#gid=0"],
    noMatch: ["https://docs.google.com/document/d/abc/edit"],
  },
});
