/** Reading: the page's text, image, interactive elements, data, selection and form values; waits; the user's browsing history (read-only, so Ask has it). */
import { Type } from "typebox";
import { tool } from "./contract.js";
import { ElementSummary, pageDetails, Rect } from "./result-shapes.js";
import {
  ACTING_MID,
  EVERYWHERE,
  none,
  optBool,
  optNum,
  optRef,
  optStr,
  PAGE,
  PAGE_LAYER,
  PAGE_SEARCH,
  PORT,
  READING_MID,
  str,
} from "./shorthands.js";

export const READING_TOOLS = [
  tool("read_page", {
    kind: "observe",
    description: "Visible text of the page.",
    parameters: Type.Object({ max_chars: optNum() }),
    details: pageDetails({
      url: Type.String(),
      title: Type.String(),
      text: Type.String(),
      truncated: Type.Boolean(),
      total_chars: Type.Number(),
    }),
    accepts: { ref_id: optRef, selector: optStr() },
    offer: EVERYWHERE,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
    refScopesRead: true,
    example: { max_chars: 2_000 },
  }),
  tool("screenshot", {
    kind: "observe",
    description: "Image of the viewport.",
    parameters: Type.Object({ full: optBool("whole page if supported") }),
    details: Type.Object({ url: Type.String(), mimeType: Type.String(), full: Type.Boolean() }),
    offer: EVERYWHERE,
    vision: true,
    needs: ["screenshot"],
    runs: PORT,
    onPage: true,
  }),
  tool("get_interactive_elements", {
    kind: "observe",
    description: "Indexed list of clickable/typeable elements.",
    parameters: Type.Object({ limit: optNum() }),
    details: pageDetails({
      count: Type.Number(),
      elements: Type.Array(
        Type.Object({
          index: Type.Number(),
          ref_id: Type.Number(),
          tag: Type.String(),
          role: Type.String(),
          name: Type.String(),
          value: optStr(),
          href: optStr(),
          rect: Type.Optional(Rect),
        }),
      ),
      truncated: optBool(),
    }),
    accepts: { visible_only: optBool() },
    offer: READING_MID,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
    example: { limit: 20 },
  }),
  tool("extract_data", {
    kind: "observe",
    description:
      "Extract links, tables, headings, lists, images, meta or text, optionally under a ref_id/selector.",
    parameters: Type.Object({
      type: Type.Optional(Type.Enum(["links", "tables", "headings", "lists", "images", "meta", "text"])),
      ref_id: optRef,
      selector: optStr(),
      limit: optNum(),
    }),
    details: pageDetails({
      type: Type.Enum(["links", "tables", "headings", "lists", "images", "meta", "text"]),
      count: Type.Number(),
      /** By type: links {text, href}, headings {level, text}, a table's rows of cells, a list's items, images {alt, src}, meta {name, content}, the text. */
      items: Type.Array(
        Type.Union([
          Type.Object({ text: Type.String(), href: Type.String() }),
          Type.Object({ level: Type.Number(), text: Type.String() }),
          Type.Array(Type.Array(Type.String())),
          Type.Array(Type.String()),
          Type.Object({ alt: Type.String(), src: Type.String() }),
          Type.Object({
            name: Type.Union([Type.String(), Type.Null()]),
            content: Type.Union([Type.String(), Type.Null()]),
          }),
          Type.String(),
        ]),
      ),
    }),
    offer: READING_MID,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
    example: { type: "tables" },
  }),
  tool("get_selection", {
    kind: "observe",
    description: "Text the user has selected.",
    parameters: none,
    details: pageDetails({ text: Type.String(), source: Type.Optional(ElementSummary), empty: optBool() }),
    offer: READING_MID,
    needs: PAGE_LAYER,
    runs: PAGE,
  }),
  tool("verify_form", {
    kind: "observe",
    description: "Read form field values (and see the viewport) before submitting (urlFilter: in a frame).",
    parameters: Type.Object({ selector: optStr(), urlFilter: optStr() }),
    details: pageDetails({
      forms: Type.Array(
        Type.Object({
          form: Type.String(),
          fields: Type.Array(
            Type.Object({
              ref_id: Type.Number(),
              role: Type.String(),
              name: Type.String(),
              type: Type.String(),
              value: Type.String(),
              checked: optBool(),
              required: Type.Boolean(),
              valid: Type.Boolean(),
              validation_message: optStr(),
            }),
          ),
          missing_required: Type.Array(Type.Number()),
          invalid: Type.Array(Type.Number()),
        }),
      ),
      /** The frame read (urlFilter). */
      frame: optStr(),
    }),
    offer: ACTING_MID,
    needs: PAGE_LAYER,
    runs: PAGE,
    formCheck: "verifies",
  }),
  tool("wait_for_element", {
    kind: "observe",
    description: "Wait until a selector or text appears.",
    parameters: Type.Object({ selector: optStr(), text: optStr(), timeout_ms: optNum() }),
    details: pageDetails({
      state: Type.Enum(["visible", "attached", "hidden", "detached"]),
      elapsed_ms: Type.Number(),
      element: Type.Optional(ElementSummary),
    }),
    accepts: {
      state: Type.Optional(Type.Enum(["visible", "attached", "hidden", "detached"])),
      timeout: optNum(),
    },
    offer: ACTING_MID,
    needs: PAGE_LAYER,
    runs: PAGE_SEARCH,
  }),
  tool("wait_for_stable", {
    kind: "observe",
    description: "Wait until the DOM and network settle.",
    parameters: Type.Object({ timeout_ms: optNum(), quiet_ms: optNum() }),
    details: pageDetails({
      stable: Type.Boolean(),
      waited_ms: Type.Number(),
      mutations: Type.Number(),
      requests: Type.Number(),
      network_wait_ms: optNum(),
      requests_in_flight: optNum(),
    }),
    accepts: { timeout: optNum() },
    offer: EVERYWHERE,
    needs: PAGE_LAYER,
    runs: PAGE,
    result: "agent",
    example: { quiet_ms: 100, timeout_ms: 5_000 },
  }),
  tool("search_history", {
    kind: "observe",
    description: "Search the user's browsing history by words in URL or title (empty: recent pages).",
    parameters: Type.Object({
      text: optStr(),
      days: optNum("only the last N days (default 7)"),
      max_results: optNum(),
    }),
    details: Type.Object({
      pages: Type.Array(
        Type.Object({ url: Type.String(), title: Type.String(), lastVisit: optStr(), visitCount: optNum() }),
      ),
    }),
    offer: READING_MID,
    needs: ["history"],
    runs: PORT,
  }),
  tool("get_history_visits", {
    kind: "observe",
    description: "When and how the user visited one URL (from search_history).",
    parameters: Type.Object({ url: str() }),
    details: Type.Object({
      url: Type.String(),
      visits: Type.Array(Type.Object({ time: optStr(), transition: optStr() })),
    }),
    offer: READING_MID,
    needs: ["history"],
    runs: PORT,
  }),
] as const;
