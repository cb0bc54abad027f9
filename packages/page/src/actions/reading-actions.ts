/**
 * Read-only page tools: read_page, get_interactive_elements, extract_data, get_selection,
 * read_page_source and inspect_element_styles (scroll: scroll-action.ts). Output is capped with explicit markers.
 */
import type { PageCallParams, PageDetails } from "@webbrain/protocol";
import { collapseWhitespace, isInput, isTextArea, renderedText, truncate } from "../dom-realm.js";
import { elementForRef, summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { PageState } from "../page-state.js";
import type { Answer } from "../protocol.js";
import { buildTree } from "../tree-builder.js";
import { isRendered } from "../visibility.js";

export const READ_PAGE_DEFAULT_MAX_CHARS = 20_000;
export const PAGE_SOURCE_DEFAULT_MAX_CHARS = 100_000;
const EXTRACT_DEFAULT_LIMIT = 100;
const DEFAULT_STYLE_PROPERTIES = [
  "display",
  "visibility",
  "opacity",
  "position",
  "z-index",
  "pointer-events",
  "cursor",
  "color",
  "background-color",
  "font-size",
  "font-weight",
  "overflow",
  "width",
  "height",
];

function capped(text: string, max: number): { text: string; truncated: boolean; total_chars: number } {
  if (text.length <= max) return { text, truncated: false, total_chars: text.length };
  return {
    text: `${text.slice(0, max)}\n… truncated: ${text.length - max} more chars not shown.`,
    truncated: true,
    total_chars: text.length,
  };
}

/** Where a call says to look: an element by ref, else by selector. */
export interface ScopeParams {
  ref_id?: number | undefined;
  selector?: string | undefined;
}

/** The element `ref_id` or `selector` names, else the page's body. */
export function scopeElement(state: PageState, p: ScopeParams, action: string): Element {
  if (p.ref_id !== undefined) return elementForRef(state, p.ref_id);
  if (p.selector) {
    const selector = p.selector;
    let found: Element | null;
    try {
      found = state.doc.querySelector(selector);
    } catch {
      throw new PageError(
        "bad_params",
        `${action}: ${JSON.stringify(selector)} is not a valid CSS selector.`,
      );
    }
    if (!found)
      throw new PageError("not_found", `${action}: nothing matches selector ${JSON.stringify(selector)}.`);
    return found;
  }
  return state.doc.body ?? state.doc.documentElement;
}

export function readPage(state: PageState, p: PageCallParams<"read_page">): Answer<"read_page"> {
  const root = scopeElement(state, p, "read_page");
  const max = p.max_chars ?? READ_PAGE_DEFAULT_MAX_CHARS;
  const text = renderedText(root)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  const out = capped(text, max);
  return { details: { url: state.doc.location?.href ?? "", title: state.doc.title, ...out } };
}

export function getInteractiveElements(
  state: PageState,
  p: PageCallParams<"get_interactive_elements">,
): Answer<"get_interactive_elements"> {
  const limit = p.limit ?? 200;
  // The printed lines with a ref, in printed order, read as nodes (every line with a ref is one).
  const tree = buildTree(state.doc, state.registry, {
    filter: p.visible_only ? "visible" : "interactive",
    nodes: true,
  });
  const refs = (tree.nodes ?? []).flatMap((node) => (node.ref === undefined ? [] : [node.ref]));
  state.interactiveList = refs;
  const elements = refs.slice(0, limit).map((ref, index) => {
    const found = state.registry.lookup(ref);
    const el = found.kind === "live" ? found.element : undefined;
    const rect = el?.getBoundingClientRect();
    const href = el?.getAttribute("href");
    return {
      index,
      ref_id: ref,
      tag: el?.localName ?? "",
      role: found.kind === "unknown" ? "" : found.record.role,
      name: found.kind === "unknown" ? "" : found.record.name,
      ...(el && (isInput(el) || isTextArea(el)) ? { value: truncate(el.value, 60) } : {}),
      ...(href ? { href } : {}),
      ...(rect
        ? {
            rect: {
              x: Math.round(rect.left),
              y: Math.round(rect.top),
              width: Math.round(rect.width),
              height: Math.round(rect.height),
            },
          }
        : {}),
    };
  });
  return { details: { count: refs.length, elements, ...(refs.length > limit ? { truncated: true } : {}) } };
}

/**
 * refs_of {selector}: the ref each match already has (null if it was never printed in a tree).
 * Does not issue refs, so it answers "is this element reachable from the last snapshot?".
 */
export function refsOf(state: PageState, p: PageCallParams<"refs_of">): Answer<"refs_of"> {
  const selector = p.selector;
  let matches: Element[];
  try {
    matches = Array.from(state.doc.querySelectorAll(selector));
  } catch {
    throw new PageError("bad_params", `refs_of: ${JSON.stringify(selector)} is not a valid CSS selector.`);
  }
  return {
    details: {
      count: matches.length,
      refs: matches.map((el) => state.registry.peek(el) ?? null),
      visible: matches.map(isRendered),
    },
  };
}

export function extractData(state: PageState, p: PageCallParams<"extract_data">): Answer<"extract_data"> {
  const kind = p.type ?? "links";
  const root = scopeElement(state, p, "extract_data");
  const limit = p.limit ?? EXTRACT_DEFAULT_LIMIT;
  const visible = (els: Element[]) => els.filter(isRendered).slice(0, limit);
  const text = (el: Element) => collapseWhitespace(renderedText(el));
  let items: PageDetails<"extract_data">["items"];
  switch (kind) {
    case "links":
      items = visible(Array.from(root.querySelectorAll("a[href]"))).map((a) => ({
        text: truncate(text(a), 120),
        href: (a as HTMLAnchorElement).href,
      }));
      break;
    case "headings":
      items = visible(Array.from(root.querySelectorAll("h1, h2, h3, h4, h5, h6, [role=heading]"))).map(
        (h) => ({
          level: Number(h.localName.slice(1)) || Number(h.getAttribute("aria-level")) || 2,
          text: text(h),
        }),
      );
      break;
    case "tables":
      items = visible(Array.from(root.querySelectorAll("table"))).map((table) =>
        Array.from((table as HTMLTableElement).rows)
          .slice(0, limit)
          .map((row) => Array.from(row.cells).map((cell) => text(cell))),
      );
      break;
    case "lists":
      items = visible(Array.from(root.querySelectorAll("ul, ol"))).map((list) =>
        Array.from(list.children)
          .filter((c) => c.localName === "li")
          .map((li) => truncate(text(li), 200)),
      );
      break;
    case "images":
      items = visible(Array.from(root.querySelectorAll("img"))).map((img) => ({
        alt: img.getAttribute("alt") ?? "",
        src: (img as HTMLImageElement).currentSrc || (img as HTMLImageElement).src,
      }));
      break;
    case "meta":
      items = Array.from(state.doc.querySelectorAll("meta[name], meta[property]"))
        .slice(0, limit)
        .map((m) => ({
          name: m.getAttribute("name") ?? m.getAttribute("property"),
          content: m.getAttribute("content"),
        }));
      break;
    default:
      items = [capped(text(root), READ_PAGE_DEFAULT_MAX_CHARS).text];
  }
  return { details: { type: kind, count: items.length, items } };
}

export function getSelection(state: PageState): Answer<"get_selection"> {
  const active = state.doc.activeElement;
  if (active && (isInput(active) || isTextArea(active))) {
    try {
      const start = active.selectionStart ?? 0;
      const end = active.selectionEnd ?? 0;
      if (end > start)
        return { details: { text: active.value.slice(start, end), source: summarize(state, active) } };
    } catch {
      // Inputs without a selection API fall through to the document selection.
    }
  }
  const selection = state.doc.defaultView?.getSelection();
  const text = selection?.toString() ?? "";
  return { details: { text, empty: text === "" } };
}

export function readPageSource(
  state: PageState,
  p: PageCallParams<"read_page_source">,
): Answer<"read_page_source"> {
  const root =
    p.selector || p.ref_id !== undefined
      ? scopeElement(state, p, "read_page_source")
      : state.doc.documentElement;
  const max = p.max_chars ?? PAGE_SOURCE_DEFAULT_MAX_CHARS;
  return { details: { ...capped(root.outerHTML, max) } };
}

export function inspectElementStyles(
  state: PageState,
  p: PageCallParams<"inspect_element_styles">,
): Answer<"inspect_element_styles"> {
  if (p.ref_id === undefined && !p.selector)
    throw new PageError("bad_params", `inspect_element_styles: pass "ref_id" or "selector".`);
  const el = scopeElement(state, p, "inspect_element_styles");
  const properties = p.properties ?? DEFAULT_STYLE_PROPERTIES;
  const style = (el.ownerDocument.defaultView ?? window).getComputedStyle(el);
  const styles: Record<string, string> = {};
  for (const name of properties) styles[name] = style.getPropertyValue(name);
  const rect = el.getBoundingClientRect();
  const view = el.ownerDocument.defaultView ?? window;
  return {
    details: {
      element: summarize(state, el),
      tag: el.localName,
      styles,
      rect: { x: rect.left, y: rect.top, width: rect.width, height: rect.height },
      // What `rect` is relative to: a trace's step screenshot draws the box as a share of it.
      viewport: { width: view.innerWidth, height: view.innerHeight },
      visible: isRendered(el),
    },
  };
}
