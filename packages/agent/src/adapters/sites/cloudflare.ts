import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "cloudflare",
  name: "Cloudflare dashboard",
  category: "code",
  matches: ["*://dash.cloudflare.com/*"],
  advice:
    "The sidebar differs at account level and inside one domain (zone). In DNS, the proxy toggle (orange or grey cloud) changes routing and TLS: do not flip it unless asked. Destructive actions ask for confirmation in a dialog.",
  examples: {
    match: ["https://dash.cloudflare.com/abc/example.com/dns"],
    noMatch: ["https://www.cloudflare.com/"],
  },
});
