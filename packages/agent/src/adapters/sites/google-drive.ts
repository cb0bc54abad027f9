import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "google-drive",
  name: "Google Drive",
  category: "productivity",
  matches: ["*://drive.google.com/*"],
  advice:
    "Files are a grid or list of rows; double-click opens, the row's three-dot menu has Share, Download and Move. Sharing opens a dialog where names become chips and access levels are a dropdown per person. Search is at the top.",
  examples: {
    match: ["https://drive.google.com/drive/my-drive"],
    noMatch: ["https://docs.google.com/document/d/x"],
  },
});
