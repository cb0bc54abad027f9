import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "gitlab",
  name: "GitLab",
  category: "code",
  matches: ["*://gitlab.com/*", "*://*.gitlab.com/*"],
  advice:
    "Project pages live under /group/project/-/ (issues, merge_requests, releases, pipelines). A merge request's Merge button stays disabled until required pipelines and approvals pass: read its status first. The left sidebar collapses on narrow windows.",
  examples: {
    match: ["https://gitlab.com/group/project/-/merge_requests/3"],
    noMatch: ["https://github.com/gitlab"],
  },
});
