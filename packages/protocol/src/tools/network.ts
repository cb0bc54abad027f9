/** Network: requests to other origins, and reading a URL in the background. */
import { Type } from "typebox";
import { tool } from "./contract.js";
import { exampleOriginUrl } from "./example.js";
import { optStr, PORT, READING_MID, str } from "./shorthands.js";

export const NETWORK_TOOLS = [
  tool("fetch_url", {
    kind: "network",
    description:
      "HTTP request. POST/PUT/PATCH/DELETE need the user's /allow-api. In Ask mode only a URL the user gave or a link on the page (exactly), with cookies only for the user's sites.",
    parameters: Type.Object({
      url: str(),
      method: optStr(),
      headers: Type.Optional(Type.Record(Type.String(), Type.String())),
      body: optStr(),
    }),
    details: Type.Object({
      status: Type.Number(),
      url: Type.String(),
      contentType: Type.String(),
      truncated: Type.Boolean(),
      body: Type.String(),
    }),
    offer: READING_MID,
    needs: ["http_fetch"],
    runs: PORT,
    opensUrls: "url",
    methodArg: "method",
    example: { url: exampleOriginUrl("/conformance/data.json") },
  }),
  tool("research_url", {
    kind: "network",
    description:
      "Open a URL in the background and read it. In Ask mode only a URL the user gave or a link on the page (exactly), with cookies only for the user's sites.",
    parameters: Type.Object({ url: str() }),
    details: Type.Object({
      url: Type.String(),
      title: Type.String(),
      text: Type.String(),
      truncated: Type.Optional(Type.Boolean()),
      readWithoutCookies: Type.Optional(Type.Boolean()),
    }),
    offer: READING_MID,
    needs: ["research"],
    runs: PORT,
    opensUrls: "url",
    example: { url: exampleOriginUrl("/conformance/frame.html") },
  }),
] as const;
