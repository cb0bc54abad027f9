/** Frames: listing them, reading one, clicking and typing in one (cross-origin ones in their own context), opening one in the tab. */
import { Type } from "typebox";
import { tool } from "./contract.js";
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
    offer: INSPECTING,
    needs: PAGE_LAYER,
    runs: PAGE,
  }),
  tool("iframe_read", {
    kind: "observe",
    description: "Read a frame's fields and text.",
    parameters: Type.Object({ urlFilter: optStr(), index: optNum(), ref_id: optRef }),
    accepts: { url_filter: optStr(), max_chars: optNum() },
    offer: READING_MID,
    needs: PAGE_LAYER,
    runs: PAGE,
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
    offer: ACTING_MID,
    needs: ["page_layer", "frame_input"],
    runs: PORT_ACTION,
    sends: { trigger: "activates", target: "none" },
  }),
  tool("iframe_type", {
    kind: "act",
    description: "Type in a frame; then verify_form with the same urlFilter.",
    parameters: Type.Object({ urlFilter: optStr(), selector: str(), text: str(), matchIndex: optNum() }),
    offer: ACTING_MID,
    needs: ["page_layer", "frame_input"],
    runs: PORT_ACTION,
    formCheck: "unverified",
  }),
  tool("promote_iframe", {
    kind: "navigate",
    description: "Open one child frame's URL in this tab.",
    parameters: Type.Object({ index: optNum(), url_filter: optStr() }),
    offer: ACTING_MID,
    needs: ["frame_promotion", "navigation"],
    runs: PORT_ACTION,
    // No URL argument: the frame is already on the page.
    permission: null,
  }),
] as const;
