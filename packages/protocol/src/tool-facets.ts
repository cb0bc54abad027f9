/**
 * Facts about a tool that guards, replay, traces, the executor and the ports read, declared beside
 * the tool (its contract in tools/<family>.ts) instead of written as lists of names in each
 * reader. (The conformance tests read the contract's `example` call: tools/example.ts.)
 *
 * Invariant: a facet says what a call of the tool does, never how one reader uses it, so two
 * readers that need the same fact read one declaration. A tool without a facet has none of that
 * behaviour (it types nothing, replay skips it, it never sends, the gate asks nothing).
 */
import type { PermissionCapability } from "./permission-capabilities.js";

/**
 * How a saved workflow treats a call. `replayed`: repeated on its recorded target, then the page
 * is left to settle; `typing`: repeated, and the next step reads the field, so no settle wait;
 * `navigation`: repeated, and the navigation itself waited for the page. Undeclared: skipped
 * (reading and waiting tools: replay reads the page itself).
 */
export type ReplayFacet = "replayed" | "typing" | "navigation";

/**
 * When a call may send a message (the recipient guard), and where its target is read from.
 * `activates`: every call, unless its target is a field or a conversation rail row (a click);
 * `uploads`: every call (a file handed to the page); `submit_flag`: only with `submit: true`;
 * `enter_key`: only when its keys hold Enter; `typed_newline`: only when its typed text holds a
 * newline. Target: `ref` its `ref_id`, `focus` the field focused last, `none` no element known.
 */
export interface SendFacet {
  trigger: "activates" | "uploads" | "submit_flag" | "enter_key" | "typed_newline";
  target: "ref" | "focus" | "none";
  /**
   * What names the control a submit goes through, for the duplicate-submit guard: `text` the
   * call's `text` argument, `ref_name` the name the last tree gave its `ref_id`.
   */
  label?: "text" | "ref_name";
}

/**
 * A frame's form and its check (done refuses while a frame typed into is unverified):
 * `unverified` leaves the frame named by `urlFilter` to verify, `verifies` checks it (and a vision
 * model sees the viewport beside the values).
 */
export type FormCheckFacet = "unverified" | "verifies";

/**
 * What the permission gate asks about for a call, and which origin it asks for: `page` the
 * page's own, `url` the call's `url` argument (no `url`, nothing asked).
 */
export interface PermissionFacet {
  capability: PermissionCapability;
  origin: "page" | "url";
}

export interface ToolFacets {
  /** The argument that carries the text a call types (redacted in traces, a workflow parameter). */
  typedArg?: string;
  replay?: ReplayFacet;
  sends?: SendFacet;
  permission?: PermissionFacet;
  formCheck?: FormCheckFacet;
  /**
   * A check the port runs before the permission prompt: `upload` refuses a file the user did not
   * give without asking anyone, and names the file in the prompt.
   */
  preflight?: "upload";
  /** The argument that holds the URLs a call opens, fetches or downloads (the URL gate checks them). */
  opensUrls?: "url" | "urls";
  /** A port tool that works on the open page as much as a page tool does (the URL gate checks the page). */
  onPage?: true;
  /** Its `ref_id` scopes what is read, not an element acted on (traces draw no box for it). */
  refScopesRead?: true;
  /**
   * Its result is the accessibility tree (`tree`; `metadata.nodes` too when asked with
   * TREE_NODES_PARAM): the executor learns its refs' names (a submit's label), the trace recorder
   * what each ref is, and dispatch asks for a tree that fits the result cap.
   */
  answersTree?: true;
  /**
   * The argument that holds the keys a call presses: Enter may send (`sends.trigger`
   * `enter_key`), and a paste chord reads the clipboard (the gate's `clipboard_read` first).
   */
  keysArg?: string;
  /**
   * Its `x`, `y` arguments name a point it clicks: the loop detector counts clicks near each other
   * as one, and traces draw a box round the point.
   */
  clicksPoint?: true;
  /** The element its `ref_id` names has the focus afterwards: a key pressed next goes there (the recipient guard's target for Enter). */
  focusesRef?: true;
  /**
   * The argument that names the HTTP method a call sends (GET when absent): POST, PUT, PATCH and
   * DELETE need the conversation's `/allow-api` and never run in Ask.
   */
  methodArg?: string;
}
