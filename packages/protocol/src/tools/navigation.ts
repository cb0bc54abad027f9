/** Navigation: the tab's URL, its history, a new tab. */
import { Type } from "typebox";
import { tool } from "./contract.js";
import { examplePageUrl } from "./example.js";
import { NAVIGATED } from "./result-shapes.js";
import { ACTING, ACTING_MID, none, PORT, str } from "./shorthands.js";

export const NAVIGATION_TOOLS = [
  tool("navigate", {
    kind: "navigate",
    description: "Open a URL in the current tab.",
    parameters: Type.Object({ url: str() }),
    details: NAVIGATED,
    offer: ACTING,
    needs: ["navigation"],
    runs: PORT,
    replay: "navigation",
    opensUrls: "url",
    example: { url: examplePageUrl("&visit=2") },
  }),
  tool("go_back", {
    kind: "navigate",
    description: "Browser back.",
    parameters: none,
    details: NAVIGATED,
    offer: ACTING,
    needs: ["navigation"],
    runs: PORT,
    replay: "navigation",
    // No URL to ask about: back and forward go where the user already was.
    permission: null,
    example: {},
  }),
  tool("go_forward", {
    kind: "navigate",
    description: "Browser forward.",
    parameters: none,
    details: NAVIGATED,
    offer: ACTING_MID,
    needs: ["navigation"],
    runs: PORT,
    replay: "navigation",
    permission: null,
    example: {},
  }),
  tool("new_tab", {
    kind: "navigate",
    description: "Open a URL in a new tab and continue there.",
    parameters: Type.Object({ url: str() }),
    details: Type.Object({ tabId: Type.String(), url: Type.String(), title: Type.String() }),
    offer: ACTING_MID,
    needs: ["tabs"],
    runs: PORT,
    opensUrls: "url",
    example: { url: examplePageUrl() },
  }),
] as const;
