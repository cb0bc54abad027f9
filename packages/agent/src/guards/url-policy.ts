/**
 * Which URLs the agent may open, fetch or download, and which documents it may read: one rule
 * for every port and every path that takes a URL (tools in the executor, the runner's command
 * line), so a page or a model cannot reach the user's files through a door we forgot.
 *
 * Invariants:
 * - http(s) and about:blank are open. `file:` needs the user's leave (LocalFileAccess: the
 *   runner's --allow-file-urls, the add-on's setting). Every other scheme is refused whatever
 *   the user allowed: javascript: and data: run or forge pages, blob: is a page's own object,
 *   and resource:, chrome:, jar:, view-source:, moz-extension: and about: pages reach the
 *   browser's own files and privileged pages.
 * - A refusal is typed (`code`) and its message says what to do: for local files, exactly how
 *   the user allows them (`howToAllow`), never a hint the model could act on alone.
 */

/** What the user allowed for local files, and how they allow them (named in refusals). */
export interface LocalFileAccess {
  readonly allowFileUrls: boolean;
  /** A sentence telling the user how to allow local files ("Run with --allow-file-urls."). */
  readonly howToAllow: string;
}

/** The default: no local files, and a refusal that says to ask the user. */
export const NO_LOCAL_FILES: LocalFileAccess = {
  allowFileUrls: false,
  howToAllow: "Only the user can allow local files.",
};

export type UrlRefusalCode = "not_a_url" | "local_file_not_allowed" | "scheme_refused";

export interface UrlRefusal {
  code: UrlRefusalCode;
  message: string;
}

const WEB_SCHEMES: ReadonlySet<string> = new Set(["http:", "https:"]);
/** about: documents a tab may show and be read in (a new tab, an iframe's srcdoc). */
const OPEN_ABOUT_URLS: ReadonlySet<string> = new Set(["about:blank", "about:srcdoc"]);

function parse(url: string): URL | undefined {
  try {
    return new URL(url.trim());
  } catch {
    return undefined;
  }
}

function localFileRefusal(url: string, access: LocalFileAccess): UrlRefusal {
  return {
    code: "local_file_not_allowed",
    message: `${url} is a local file, and the user has not allowed local files (file: URLs). ${access.howToAllow}`,
  };
}

/**
 * Why the agent may not open, fetch or download `url` (undefined: it may). `what` names the
 * use in the message ("navigate", "fetch_url", a CLI flag).
 */
export function urlRefusal(url: string, access: LocalFileAccess, what = "open"): UrlRefusal | undefined {
  const parsed = parse(url);
  if (!parsed) {
    return {
      code: "not_a_url",
      message: `"${url}" is not an absolute URL. Include the scheme, e.g. https://example.com/.`,
    };
  }
  if (WEB_SCHEMES.has(parsed.protocol)) return undefined;
  if (OPEN_ABOUT_URLS.has(`${parsed.protocol}${parsed.pathname}`)) return undefined;
  if (parsed.protocol === "file:") return access.allowFileUrls ? undefined : localFileRefusal(url, access);
  return {
    code: "scheme_refused",
    message: `${parsed.protocol} URLs are refused (cannot ${what} ${JSON.stringify(url.slice(0, 60))}); use an http(s) address.`,
  };
}

/**
 * Why the agent may not read a tab that shows `documentUrl` (undefined: it may). A page can
 * link or redirect to a local document the model was never allowed to open; what the browser
 * actually landed on is checked here. Unknown (empty) URLs and data: documents (a test's or a
 * page's own frame) stay readable: they hold nothing of the user's disk.
 */
export function documentRefusal(documentUrl: string, access: LocalFileAccess): UrlRefusal | undefined {
  const parsed = parse(documentUrl);
  if (!parsed || parsed.protocol === "data:" || parsed.protocol === "blob:") return undefined;
  const refusal = urlRefusal(documentUrl, access, "read");
  if (!refusal) return undefined;
  if (refusal.code === "local_file_not_allowed") return refusal;
  return {
    code: "scheme_refused",
    message: `This tab shows ${documentUrl.slice(0, 80)}, a browser page the agent may not read. Navigate to an http(s) page.`,
  };
}
