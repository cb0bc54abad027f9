/**
 * Page and third-party text is data, never instructions (DESIGN.md). Everything such text
 * reaches the model through is wrapped in one tag the system prompt names, and the text is
 * escaped so it cannot close the tag early and speak outside it.
 */

export const UNTRUSTED_TAG = "untrusted";

/** Characters a tool result may carry to the model (spec 000: 8 KB cap). */
export const MAX_TOOL_RESULT_CHARS = 8_000;

/** Wrap text from `source` (e.g. `page https://example.com/`) as untrusted data. */
export function wrapUntrusted(source: string, text: string): string {
  // A page could contain "</untrusted>" to escape the wrapper; break that sequence.
  const safe = text.replace(/<\/?untrusted/gi, (match) => match.replace("<", "<\u200b"));
  const label = source.replace(/"/g, "'");
  return `<${UNTRUSTED_TAG} source="${label}">\n${safe}\n</${UNTRUSTED_TAG}>`;
}

/** Cap text at `max` characters with a marker that says how much was cut and what to do. */
export function capText(text: string, max = MAX_TOOL_RESULT_CHARS): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  return `${text.slice(0, max)}\n[truncated ${cut} chars: narrow the request (a ref_id scope, filter:"interactive", max_chars, extract_data)]`;
}
