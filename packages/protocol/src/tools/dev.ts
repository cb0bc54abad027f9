/** Dev mode only: page source, computed styles, JavaScript in the page. */
import { Type } from "typebox";
import { tool } from "./contract.js";
import { ElementSummary, pageDetails, Rect } from "./result-shapes.js";
import {
  DEV_ONLY,
  optBool,
  optNum,
  optRef,
  optStr,
  PAGE,
  PAGE_LAYER,
  PORT_ACTION,
  str,
} from "./shorthands.js";

export const DEV_TOOLS = [
  tool("read_page_source", {
    kind: "dev",
    description: "HTML source of the page or an element.",
    parameters: Type.Object({ ref_id: optRef, selector: optStr(), max_chars: optNum() }),
    details: pageDetails({ text: Type.String(), truncated: Type.Boolean(), total_chars: Type.Number() }),
    offer: DEV_ONLY,
    needs: PAGE_LAYER,
    runs: PAGE,
    example: { selector: "h1" },
  }),
  tool("inspect_element_styles", {
    kind: "dev",
    description: "Computed styles and box of an element.",
    parameters: Type.Object({ ref_id: optRef, selector: optStr() }),
    details: pageDetails({
      element: ElementSummary,
      tag: Type.String(),
      styles: Type.Record(Type.String(), Type.String()),
      rect: Rect,
      viewport: Type.Object({ width: Type.Number(), height: Type.Number() }),
      visible: Type.Boolean(),
    }),
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
    details: Type.Object({
      /** The code's value as JSON: its shape is the page's. */
      result: Type.Unknown(),
      truncated: optBool(),
      result_chars: optNum(),
      via: optStr(),
    }),
    offer: DEV_ONLY,
    needs: ["execute_js"],
    runs: PORT_ACTION,
    permission: { capability: "execute_js", origin: "page" },
    example: { code: "document.title" },
  }),
] as const;
