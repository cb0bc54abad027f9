/** Dev mode only: page source, computed styles, JavaScript in the page. */
import { Type } from "typebox";
import { tool } from "./contract.js";
import { DEV_ONLY, optNum, optRef, optStr, PAGE, PAGE_LAYER, PORT_ACTION, str } from "./shorthands.js";

export const DEV_TOOLS = [
  tool("read_page_source", {
    kind: "dev",
    description: "HTML source of the page or an element.",
    parameters: Type.Object({ ref_id: optRef, selector: optStr(), max_chars: optNum() }),
    offer: DEV_ONLY,
    needs: PAGE_LAYER,
    runs: PAGE,
    example: { selector: "h1" },
  }),
  tool("inspect_element_styles", {
    kind: "dev",
    description: "Computed styles and box of an element.",
    parameters: Type.Object({ ref_id: optRef, selector: optStr() }),
    accepts: { properties: Type.Optional(Type.Array(Type.String())) },
    offer: DEV_ONLY,
    needs: PAGE_LAYER,
    runs: PAGE,
    example: { selector: "h1" },
  }),
  tool("execute_js", {
    kind: "dev",
    description: "Run JavaScript in the page; returns its JSON result.",
    parameters: Type.Object({ code: str() }),
    offer: DEV_ONLY,
    needs: ["execute_js"],
    runs: PORT_ACTION,
    permission: { capability: "execute_js", origin: "page" },
    example: { code: "document.title" },
  }),
] as const;
