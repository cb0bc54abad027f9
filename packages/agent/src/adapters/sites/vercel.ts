import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "vercel",
  name: "Vercel",
  category: "code",
  matches: ["*://vercel.com/*"],
  advice:
    "The team switcher sits at the top left, apart from projects. Each project has Production and Preview deployments; promoting a preview is its own action. Environment variables are per environment and need a redeploy to apply.",
  examples: {
    match: ["https://vercel.com/team/project/deployments"],
    noMatch: ["https://vercel.app/"],
  },
});
