import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "jira",
  name: "Jira",
  category: "productivity",
  matches: ["*://*.atlassian.net/browse/*", "*://*.atlassian.net/jira/*", "*://*.atlassian.net/issues/*"],
  advice:
    "An issue opens at /browse/KEY-123 or in a side panel. Status changes are workflow transitions from the status button; some open a screen with required fields. Search with JQL at /issues/?jql=... is more exact than the quick search.",
  examples: {
    match: [
      "https://acme.atlassian.net/browse/PROJ-1",
      "https://acme.atlassian.net/jira/software/projects/P/boards/1",
    ],
    noMatch: ["https://acme.atlassian.net/wiki/spaces/X"],
  },
});
