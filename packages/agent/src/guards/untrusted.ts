/**
 * Page and third-party text is data, never instructions (DESIGN.md). Everything such text
 * reaches the model through is wrapped in one tag the system prompt names, and the text is
 * escaped so it cannot close the tag early and speak outside it.
 */

export const UNTRUSTED_TAG = "untrusted";

/** Characters a tool result may carry to the model (spec 000: 8 KB cap). */
export const MAX_TOOL_RESULT_CHARS = 8_000;

/** A source label longer than this is cut: it names where the text came from, nothing more. */
export const MAX_SOURCE_LABEL_CHARS = 200;

/**
 * The label as one attribute value: the label is page-derived too (a URL, a download's
 * filename), and it sits in the opening tag, outside the wrapped text. So no quote, angle
 * bracket or line break that could end the tag and speak outside it, and a bounded length.
 */
export function sourceLabel(source: string): string {
  const flat = source
    .replace(/"/g, "'")
    .replace(/[<>]/g, "")
    .replace(/[\p{Cc}\u2028\u2029]+/gu, " ");
  return flat.length > MAX_SOURCE_LABEL_CHARS ? `${flat.slice(0, MAX_SOURCE_LABEL_CHARS)}…` : flat;
}

/** Wrap text from `source` (e.g. `page https://example.com/`) as untrusted data. */
export function wrapUntrusted(source: string, text: string): string {
  // A page could contain "</untrusted>" to escape the wrapper; break that sequence.
  const safe = text.replace(/<\/?untrusted/gi, (match) => match.replace("<", "<\u200b"));
  return `<${UNTRUSTED_TAG} source="${sourceLabel(source)}">\n${safe}\n</${UNTRUSTED_TAG}>`;
}

/** Cap text at `max` characters with a marker that says how much was cut and what to do. */
export function capText(text: string, max = MAX_TOOL_RESULT_CHARS): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  return `${text.slice(0, max)}\n[truncated ${cut} chars: narrow the request (a ref_id scope, filter:"interactive", max_chars, extract_data)]`;
}

const OPENING_TAG = `<${UNTRUSTED_TAG} source=`;
const CLOSING_TAG = `</${UNTRUSTED_TAG}>`;

/** Whether `at` lies inside a wrapped block of `text` (blocks never nest: wrapUntrusted escapes). */
function insideWrapper(text: string, at: number): boolean {
  const open = text.lastIndexOf(OPENING_TAG, at - 1);
  if (open < 0) return false;
  const close = text.indexOf(CLOSING_TAG, open);
  return close < 0 || close + CLOSING_TAG.length > at;
}

/**
 * `text.slice(start, end)` with the wrapped blocks it cuts made whole again: a cut inside a
 * block gets an opening tag before it or the closing tag after it, so page text never loses
 * its wrapper by being shortened (the summarizer's input keeps only parts of results).
 */
export function sliceKeepingWrappers(text: string, start: number, end = text.length): string {
  const head = start > 0 && insideWrapper(text, start) ? `${OPENING_TAG}"cut">\n` : "";
  const tail = end < text.length && insideWrapper(text, end) ? `\n${CLOSING_TAG}` : "";
  return `${head}${text.slice(start, end)}${tail}`;
}
