/**
 * select_text: selects text so the page sees a real selection, as if a person had dragged over
 * it: a field's value (or part of it) with the field focused, or text in the page with the
 * document's Selection. `text` picks the part (found as written, then ignoring whitespace and
 * case, since the tree collapses whitespace); without it the whole value or element is selected;
 * without ref_id the text is looked for in the whole page.
 *
 * Both ports use the Selection API (setSelectionRange / Selection.addRange), not a drag with
 * trusted input: a drag selects by glyph geometry, which misses by a character at line wraps and
 * word edges, while the page reads the same Selection either way (`getSelection()`,
 * `selectionStart`, `select` and `selectionchange` events). A trusted Control+c after it copies
 * exactly this selection (runner); the add-on's press_keys copies it as its platform allows.
 */
import type { PageCallParams } from "@webbrain/protocol";
import { isInput, isTextArea, windowOf } from "../dom-realm.js";
import { elementForRef, makeActionable, summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { PageState } from "../page-state.js";
import type { Answer } from "../protocol.js";
import { isTextEntry } from "../roles.js";
import { isRendered } from "../visibility.js";

/** Elements whose text is not page prose (code, templates, field internals). */
const SKIPPED_TEXT_PARENTS = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "textarea",
  "select",
  "option",
]);

interface Span {
  start: number;
  end: number;
  /** How many places the text occurs (the first is selected). */
  count: number;
}

/** Where `needle` is in `haystack`: as written, then ignoring whitespace, then also case. */
export function locateText(haystack: string, needle: string): Span | undefined {
  const exact = occurrences(haystack, needle);
  if (exact) return exact;
  // Compare with whitespace removed, remembering where each kept character came from.
  const kept: number[] = [];
  let stripped = "";
  for (let i = 0; i < haystack.length; i++) {
    const ch = haystack[i] ?? "";
    if (/\s/.test(ch)) continue;
    kept.push(i);
    stripped += ch;
  }
  const wanted = needle.replace(/\s+/g, "");
  if (!wanted) return undefined;
  const found = occurrences(stripped, wanted) ?? occurrences(stripped.toLowerCase(), wanted.toLowerCase());
  if (!found) return undefined;
  const start = kept[found.start] ?? 0;
  const end = (kept[found.end - 1] ?? start) + 1;
  return { start, end, count: found.count };
}

function occurrences(haystack: string, needle: string): Span | undefined {
  if (!needle) return undefined;
  const first = haystack.indexOf(needle);
  if (first < 0) return undefined;
  let count = 0;
  for (let at = first; at >= 0; at = haystack.indexOf(needle, at + needle.length)) count++;
  return { start: first, end: first + needle.length, count };
}

/** The page text nodes under `root` a person could select, in document order. */
function selectableTextNodes(root: Node): Text[] {
  const doc = root.ownerDocument ?? (root as Document);
  const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || SKIPPED_TEXT_PARENTS.has(parent.localName) || !isRendered(parent)) continue;
    if (!(node as Text).data) continue;
    nodes.push(node as Text);
  }
  return nodes;
}

/** A Range over characters [start, end) of the text nodes' concatenation. */
function rangeOver(doc: Document, nodes: readonly Text[], start: number, end: number): Range {
  const range = doc.createRange();
  let offset = 0;
  let started = false;
  for (const node of nodes) {
    const length = node.data.length;
    if (!started && start < offset + length) {
      range.setStart(node, start - offset);
      started = true;
    }
    if (started && end <= offset + length) {
      range.setEnd(node, end - offset);
      return range;
    }
    offset += length;
  }
  throw new PageError("internal", "select_text: the text moved while it was being selected.");
}

function notFound(text: string, where: string): PageError {
  return new PageError(
    "not_found",
    `select_text: ${JSON.stringify(text)} is not in ${where}. Copy the words exactly as the tree shows them, or leave out "text" to select all of it.`,
  );
}

export function selectText(state: PageState, p: PageCallParams<"select_text">): Answer<"select_text"> {
  const text = p.text;
  if (p.ref_id === undefined) {
    if (!text)
      throw new PageError(
        "bad_params",
        `select_text: pass ref_id (the element or field to select in), text (what to select), or both.`,
      );
    return selectInElement(state, state.doc.body ?? state.doc.documentElement, text, "the page");
  }
  const el = elementForRef(state, p.ref_id);
  // Scrolls it into view and refuses hidden elements; a disabled field can still be selected.
  const target = makeActionable(state, el, { occlusion: false, force: true, enabled: false }).summary;
  if ((isInput(el) || isTextArea(el)) && isTextEntry(el)) return selectInField(state, el, text);
  return selectInElement(state, el, text, `[${target.ref_id}] ${target.role}`);
}

function selectInField(
  state: PageState,
  field: HTMLInputElement | HTMLTextAreaElement,
  text: string | undefined,
): Answer<"select_text"> {
  const value = field.value;
  const span = text ? locateText(value, text) : { start: 0, end: value.length, count: 1 };
  const target = summarize(state, field);
  if (!span) throw notFound(text ?? "", `the value of [${target.ref_id}] ${target.role}`);
  field.focus({ preventScroll: true });
  try {
    field.setSelectionRange(span.start, span.end, "forward");
  } catch {
    throw new PageError(
      "bad_params",
      `select_text: [${target.ref_id}] is an input whose type has no text selection (number, email...).`,
    );
  }
  return {
    details: {
      target,
      in_field: true,
      selected: value.slice(span.start, span.end),
      start: span.start,
      end: span.end,
      ...(span.count > 1 ? { matches: span.count } : {}),
    },
  };
}

function selectInElement(
  state: PageState,
  root: Element,
  text: string | undefined,
  where: string,
): Answer<"select_text"> {
  const nodes = selectableTextNodes(root);
  const whole = nodes.map((n) => n.data).join("");
  let span: Span | undefined;
  if (text) span = locateText(whole, text);
  else {
    // The whole text, without the whitespace around it.
    const start = whole.search(/\S/);
    span = start < 0 ? undefined : { start, end: whole.trimEnd().length, count: 1 };
  }
  if (!span) {
    if (text) throw notFound(text, where);
    throw new PageError("not_found", `select_text: ${where} has no text to select.`);
  }
  // A focused field keeps its own selection (and Control+c would copy that): leave it first.
  const active = state.doc.activeElement as HTMLElement | null;
  if (active && active !== state.doc.body && !active.contains(root) && isTextEntry(active)) active.blur();
  const range = rangeOver(state.doc, nodes, span.start, span.end);
  const selection = windowOf(root).getSelection();
  if (!selection) throw new PageError("internal", "select_text: this document has no selection.");
  selection.removeAllRanges();
  selection.addRange(range);
  const container = range.commonAncestorContainer;
  const holder = container.nodeType === 1 ? (container as Element) : container.parentElement;
  return {
    details: {
      ...(holder ? { target: summarize(state, holder) } : {}),
      in_field: false,
      selected: selection.toString(),
      ...(span.count > 1 ? { matches: span.count } : {}),
    },
  };
}
