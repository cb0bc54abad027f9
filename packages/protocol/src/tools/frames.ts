/** Frames: listing them, reading one, clicking and typing in one (cross-origin ones in their own context), opening one in the tab. */
import { Type } from "typebox";
import { tool } from "./contract.js";
import { EXAMPLE_FRAME_FILTER } from "./example.js";
import { EffectReport, ElementSummary, pageDetails, Rect, TYPED } from "./result-shapes.js";
import {
  ACTING_MID,
  INSPECTING,
  none,
  optNum,
  optRef,
  optStr,
  PAGE,
  PAGE_LAYER,
  PORT_ACTION,
  READING_MID,
  str,
} from "./shorthands.js";

export const FRAMES_TOOLS = [
  tool("get_frames", {
    kind: "observe",
    description: "List frames with their URLs.",
    parameters: none,
    details: pageDetails({
      count: Type.Number(),
      frames: Type.Array(
        Type.Object({
          index: Type.Number(),
          ref_id: Type.Number(),
          name: Type.String(),
          title: Type.String(),
          src: Type.String(),
          same_origin: Type.Boolean(),
          visible: Type.Boolean(),
          rect: Rect,
        }),
      ),
    }),
    offer: INSPECTING,
    needs: PAGE_LAYER,
    runs: PAGE,
    example: {},
  }),
  tool("iframe_read", {
    kind: "observe",
    description: "Read a frame's fields and text.",
    parameters: Type.Object({ urlFilter: optStr(), index: optNum(), ref_id: optRef }),
    details: pageDetails({
      src: Type.String(),
      title: Type.String(),
      text: Type.String(),
      fields: Type.Optional(
        Type.Array(
          Type.Object({
            ref_id: Type.Number(),
            label: Type.String(),
            value: Type.String(),
            selector: Type.String(),
            matchIndex: Type.Number(),
          }),
        ),
      ),
      /** A cross-origin frame read in its own context: read_page's fields, and how it was read. */
      truncated: Type.Optional(Type.Boolean()),
      total_chars: optNum(),
      via: optStr(),
    }),
    accepts: { url_filter: optStr(), max_chars: optNum() },
    offer: READING_MID,
    needs: PAGE_LAYER,
    runs: PAGE,
    example: { urlFilter: EXAMPLE_FRAME_FILTER },
  }),
  tool("iframe_click", {
    kind: "act",
    description: "Click in a frame.",
    parameters: Type.Object({
      urlFilter: optStr(),
      selector: optStr(),
      text: optStr(),
      matchIndex: optNum(),
    }),
    details: pageDetails({
      target: Type.Optional(ElementSummary),
      effect: Type.Optional(EffectReport),
      note: optStr(),
      frame: optStr(),
    }),
    offer: ACTING_MID,
    needs: ["page_layer", "frame_input"],
    runs: PORT_ACTION,
    sends: { trigger: "activates", target: "none" },
    example: { urlFilter: EXAMPLE_FRAME_FILTER, selector: "#apply" },
  }),
  tool("iframe_type", {
    kind: "act",
    description: "Type in a frame; then verify_form with the same urlFilter.",
    parameters: Type.Object({ urlFilter: optStr(), selector: str(), text: str(), matchIndex: optNum() }),
    details: pageDetails({ ...TYPED, frame: optStr() }),
    offer: ACTING_MID,
    needs: ["page_layer", "frame_input"],
    runs: PORT_ACTION,
    formCheck: "unverified",
    example: { urlFilter: EXAMPLE_FRAME_FILTER, selector: "#code", text: "SPRING" },
  }),
  tool("promote_iframe", {
    kind: "navigate",
    description: "Open one child frame's URL in this tab.",
    parameters: Type.Object({ index: optNum(), url_filter: optStr() }),
    details: Type.Object({ url: Type.String(), title: optStr() }),
    offer: ACTING_MID,
    needs: ["frame_promotion", "navigation"],
    runs: PORT_ACTION,
    // No URL argument: the frame is already on the page.
    permission: null,
    example: { url_filter: EXAMPLE_FRAME_FILTER },
  }),
] as const;
