/**
 * What a BrowserPort can run, as a set of named capabilities.
 *
 * Each tool declaration names the capabilities it needs; the agent offers a tool only when the
 * port declares all of them, and the executor checks again before running it. A port declares a
 * capability only when a real call through it works: the conformance tests (runner and add-on,
 * real Firefox) call every tool a port is offered and fail on "unknown action" or "not supported".
 *
 * Some capabilities change no tool list and only say how a tool behaves (`trusted_input`,
 * `closed_shadow_roots`, `full_page_screenshot`); they are here so a port says it once.
 *
 * `person_at_hand` is about the host, not the browser: a port declares it only when it was
 * given a way to reach a person who can answer now (the runner with `--allow-pause`, or
 * `--headed` on a terminal). An unattended run must never wait for nobody.
 */

export const BROWSER_CAPABILITIES = {
  page_layer:
    "runs the page script in the tab's top document (tree, reading, element actions, waits, same-origin frames)",
  navigation: "navigates the tab, back and forward",
  tabs: "opens new tabs",
  screenshot: "takes screenshots of the tab",
  full_page_screenshot: "screenshots the whole page, not only the viewport",
  trusted_input: "presses clicks and keys as trusted input (isTrusted === true)",
  closed_shadow_roots: "sees inside closed shadow roots",
  frame_input: "clicks and types inside child frames of any origin",
  frame_promotion: "lists child frames with their URLs, cross-origin included",
  execute_js: "runs JavaScript in the page's own realm",
  http_fetch: "makes HTTP requests",
  research: "reads a URL in a background tab",
  downloads: "lists and reads the run's downloads",
  download: "starts downloads",
  resource_url: "finds the URL of the file behind an element",
  file_upload: "puts a file into a file input",
  person_at_hand:
    "has a person at the browser who can take over (log in, solve a captcha) and hand the run back",
  history: "searches the user's browsing history and lists a page's visits",
  clipboard_read:
    "reads the system clipboard for a paste key (Control+v), behind the permission gate's clipboard_read",
} as const;

export type BrowserCapability = keyof typeof BROWSER_CAPABILITIES;

/** What one port declares it can run. */
export type BrowserCapabilities = ReadonlySet<BrowserCapability>;

export const ALL_BROWSER_CAPABILITIES: BrowserCapabilities = new Set(
  Object.keys(BROWSER_CAPABILITIES) as BrowserCapability[],
);

/** A port's capability set, from its names (`browserCapabilities("page_layer", "navigation")`). */
export function browserCapabilities(...names: BrowserCapability[]): BrowserCapabilities {
  return new Set(names);
}

/** The capabilities in `needed` that `have` lacks, in `needed`'s order. */
export function missingCapabilities(
  needed: readonly BrowserCapability[],
  have: BrowserCapabilities,
): BrowserCapability[] {
  return needed.filter((name) => !have.has(name));
}
