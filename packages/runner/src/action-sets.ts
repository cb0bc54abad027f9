/**
 * Which page actions the runner presses with trusted input, and which search the page (so closed
 * shadow roots are shown to the sandbox first). Kept apart so the tool declarations (one
 * declaration per tool) can feed them without touching the action code.
 */

/** Actions the page layer can resolve to a plan of trusted input. */
export const TRUSTED_ACTIONS: ReadonlySet<string> = new Set([
  "click_ax",
  "type_ax",
  "set_field",
  "hover",
  "drag_drop",
  "click",
  "type_text",
  "press_keys",
]);

/** Actions that look for elements: closed shadow roots are exposed to the sandbox first. */
export const SEARCHING_ACTIONS: ReadonlySet<string> = new Set([
  "get_accessibility_tree",
  "get_interactive_elements",
  "read_page",
  "click",
  "type_text",
  "wait_for_element",
  "extract_data",
  "get_shadow_dom",
]);
