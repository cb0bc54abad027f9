/**
 * Every spec 000 tool: its model-facing schema (typebox, sent as JSON Schema) and its kind.
 *
 * Descriptions are deliberately terse: the tool JSON is sent on every model call, and its size
 * is the user's main cost (see `npm run bench -w packages/agent`). Guidance that needs more
 * words lives once in the system prompt, not repeated per tool.
 *
 * Kinds drive the guards: `observe` tools read and never change the page ("looking is not
 * looping": the loop detector ignores them); `act` tools change the page; `navigate` changes
 * the URL; `network` reaches other origins; `dev` only exists in Dev mode; `control` ends or
 * pauses the turn.
 */
import { type TSchema, Type } from "typebox";

export type ToolKind = "observe" | "act" | "navigate" | "network" | "download" | "dev" | "control";

export interface ToolSpec {
  name: string;
  kind: ToolKind;
  description: string;
  parameters: TSchema;
}

const ref = Type.Union([Type.Integer(), Type.String()], { description: "ref_id from the tree" });
const optRef = Type.Optional(ref);
const str = (description?: string) => Type.String(description ? { description } : {});
const optStr = (description?: string) => Type.Optional(str(description));
const optNum = (description?: string) => Type.Optional(Type.Number(description ? { description } : {}));
const optBool = (description?: string) => Type.Optional(Type.Boolean(description ? { description } : {}));
const none = Type.Object({});
const resubmit = optBool("true only to deliberately repeat a submit that was blocked");

function tool(name: string, kind: ToolKind, description: string, parameters: TSchema): ToolSpec {
  return { name, kind, description, parameters };
}

export const TOOL_CATALOG: readonly ToolSpec[] = [
  // Accessibility-tree tools (preferred).
  tool(
    "get_accessibility_tree",
    "observe",
    'Indexed snapshot of the page: [ref] role "name" states.',
    Type.Object({
      filter: Type.Optional(
        Type.Union([Type.Literal("interactive"), Type.Literal("visible"), Type.Literal("all")]),
      ),
      ref_id: optRef,
      max_chars: optNum(),
    }),
  ),
  tool("click_ax", "act", "Click element by ref_id.", Type.Object({ ref_id: ref, _allowResubmit: resubmit })),
  tool("type_ax", "act", "Replace a field's value by ref_id.", Type.Object({ ref_id: ref, value: str() })),
  tool(
    "set_field",
    "act",
    "Type into a field; submit:true commits a combobox option (ArrowDown+Enter) or submits the form.",
    Type.Object({ ref_id: ref, value: str(), submit: optBool() }),
  ),
  tool("hover", "act", "Hover an element.", Type.Object({ ref_id: ref })),
  tool(
    "drag_drop",
    "act",
    "Drag one element onto another.",
    Type.Object({ from_ref_id: ref, to_ref_id: ref }),
  ),
  // Page reading.
  tool("read_page", "observe", "Visible text of the page.", Type.Object({ max_chars: optNum() })),
  tool(
    "screenshot",
    "observe",
    "Image of the viewport.",
    Type.Object({ full: optBool("whole page if supported") }),
  ),
  tool(
    "get_interactive_elements",
    "observe",
    "Indexed list of clickable/typeable elements.",
    Type.Object({ limit: optNum() }),
  ),
  // Legacy interaction.
  tool(
    "click",
    "act",
    "Click by text, CSS selector, index (get_interactive_elements) or x,y.",
    Type.Object({
      text: optStr(),
      selector: optStr(),
      index: optNum(),
      x: optNum(),
      y: optNum(),
      match_index: optNum("pick one of several text matches"),
      _allowResubmit: resubmit,
    }),
  ),
  tool(
    "type_text",
    "act",
    "Type text into a field (ref_id or selector; default: the focused field).",
    Type.Object({ text: str(), ref_id: optRef, selector: optStr(), clear: optBool() }),
  ),
  tool("press_keys", "act", "Press keys, e.g. Enter, Escape, Tab, Control+a.", Type.Object({ keys: str() })),
  tool(
    "scroll",
    "observe",
    "Scroll the page or to an element.",
    Type.Object({
      direction: Type.Optional(Type.Union([Type.Literal("up"), Type.Literal("down")])),
      amount: optNum("pixels"),
      to: Type.Optional(Type.Union([Type.Literal("top"), Type.Literal("bottom")])),
      ref_id: optRef,
    }),
  ),
  tool("navigate", "navigate", "Open a URL in the current tab.", Type.Object({ url: str() })),
  tool("go_back", "navigate", "Browser back.", none),
  tool("go_forward", "navigate", "Browser forward.", none),
  tool("new_tab", "navigate", "Open a URL in a new tab and continue there.", Type.Object({ url: str() })),
  tool(
    "promote_iframe",
    "navigate",
    "Open one child frame's URL in this tab.",
    Type.Object({ index: optNum(), url_filter: optStr() }),
  ),
  tool(
    "wait_for_element",
    "observe",
    "Wait until a selector or text appears.",
    Type.Object({ selector: optStr(), text: optStr(), timeout_ms: optNum() }),
  ),
  tool(
    "wait_for_stable",
    "observe",
    "Wait until the DOM and network settle.",
    Type.Object({ timeout_ms: optNum(), quiet_ms: optNum() }),
  ),
  tool(
    "extract_data",
    "observe",
    "Extract links, tables, headings, lists, images, meta or text, optionally under a ref_id/selector.",
    Type.Object({
      type: Type.Optional(
        Type.Union(
          ["links", "tables", "headings", "lists", "images", "meta", "text"].map((kind) =>
            Type.Literal(kind),
          ),
        ),
      ),
      ref_id: optRef,
      selector: optStr(),
      limit: optNum(),
    }),
  ),
  tool("get_selection", "observe", "Text the user has selected.", none),
  tool(
    "verify_form",
    "observe",
    "Read form field values before submitting (urlFilter: in a frame).",
    Type.Object({ selector: optStr(), urlFilter: optStr() }),
  ),
  // Frames and shadow DOM.
  tool(
    "get_shadow_dom",
    "observe",
    "Read open shadow roots under an element (default: the page).",
    Type.Object({ ref_id: optRef }),
  ),
  tool("get_frames", "observe", "List frames with their URLs.", none),
  tool(
    "iframe_read",
    "observe",
    "Read a frame's fields and text.",
    Type.Object({ urlFilter: optStr(), index: optNum(), ref_id: optRef }),
  ),
  tool(
    "iframe_click",
    "act",
    "Click in a frame.",
    Type.Object({ urlFilter: optStr(), selector: optStr(), text: optStr(), matchIndex: optNum() }),
  ),
  tool(
    "iframe_type",
    "act",
    "Type in a frame; then verify_form with the same urlFilter.",
    Type.Object({ urlFilter: optStr(), selector: str(), text: str(), matchIndex: optNum() }),
  ),
  // Network.
  tool(
    "fetch_url",
    "network",
    "HTTP request. POST/PUT/PATCH/DELETE need the user's /allow-api.",
    Type.Object({
      url: str(),
      method: optStr(),
      headers: Type.Optional(Type.Record(Type.String(), Type.String())),
      body: optStr(),
    }),
  ),
  tool("research_url", "network", "Open a URL in the background and read it.", Type.Object({ url: str() })),
  // Downloads.
  tool("list_downloads", "observe", "Recent downloads.", Type.Object({ limit: optNum() })),
  tool("read_downloaded_file", "observe", "Read a downloaded file.", Type.Object({ id: str() })),
  tool(
    "download_resource_from_page",
    "download",
    "Download the file behind an element.",
    Type.Object({ ref_id: optRef, selector: optStr(), filename: optStr() }),
  ),
  tool("download_files", "download", "Download URLs.", Type.Object({ urls: Type.Array(Type.String()) })),
  tool(
    "upload_file",
    "act",
    "Put a file into a file input.",
    Type.Object({ ref_id: optRef, selector: optStr(), downloadId: optStr(), path: optStr() }),
  ),
  // Dev.
  tool(
    "read_page_source",
    "dev",
    "HTML source of the page or an element.",
    Type.Object({ ref_id: optRef, selector: optStr(), max_chars: optNum() }),
  ),
  tool(
    "inspect_element_styles",
    "dev",
    "Computed styles and box of an element.",
    Type.Object({ ref_id: optRef, selector: optStr() }),
  ),
  tool(
    "execute_js",
    "dev",
    "Run JavaScript in the page; returns its JSON result.",
    Type.Object({ code: str() }),
  ),
  // Control.
  tool("clarify", "control", "Ask the user one question and wait.", Type.Object({ question: str() })),
  tool(
    "done",
    "control",
    "Finish: say what was done and how you verified it.",
    Type.Object({ summary: str() }),
  ),
];

const BY_NAME = new Map(TOOL_CATALOG.map((spec) => [spec.name, spec]));

export function toolSpec(name: string): ToolSpec | undefined {
  return BY_NAME.get(name);
}

/** Tools that only look: the loop detector skips them and Ask may use them. */
export function isObservation(name: string): boolean {
  return BY_NAME.get(name)?.kind === "observe";
}
