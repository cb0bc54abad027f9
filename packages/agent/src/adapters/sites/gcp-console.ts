import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "gcp-console",
  name: "Google Cloud console",
  category: "code",
  matches: ["*://console.cloud.google.com/*"],
  advice:
    "Everything is scoped to the project picked in the top bar: confirm it first. Services hide in the navigation menu at the top left. A service's first use may ask to enable its API, which takes a while to take effect.",
  examples: {
    match: ["https://console.cloud.google.com/compute/instances?project=p"],
    noMatch: ["https://cloud.google.com/compute"],
  },
});
