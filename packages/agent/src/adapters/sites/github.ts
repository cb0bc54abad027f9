import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "github",
  name: "GitHub",
  category: "code",
  matches: ["*://github.com/*", "*://*.github.com/*"],
  advice:
    "Dialogs (new tag, merge, delete) sit over the page: finish or close them before anything behind. Pressing t in a repository opens the file finder and / the search box. Issue, PR and release bodies are Markdown textareas with a Preview tab; Danger-zone settings ask you to type the repository name to confirm.",
  examples: {
    match: ["https://github.com/org/repo/pulls", "https://gist.github.com/u/1"],
    noMatch: ["https://example.com/github.com"],
  },
});
