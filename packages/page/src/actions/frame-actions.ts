/**
 * Frames and shadow DOM: get_frames, iframe_read (same-origin frames; a cross-origin frame is
 * answered with `cross_origin` so the caller can use its own frame access), get_shadow_dom.
 */
import type { PageCallParams } from "@webbrain/protocol";
import { accessibleName } from "../accessible-name.js";
import {
  collapseWhitespace,
  isIframe,
  renderedText,
  sameOriginDocument,
  shadowRootOf,
  truncate,
} from "../dom-realm.js";
import { elementForRef, summarize } from "../element-target.js";
import { PageError } from "../page-error.js";
import type { PageState } from "../page-state.js";
import type { Answer } from "../protocol.js";
import { roleOf } from "../roles.js";
import { buildTree } from "../tree-builder.js";
import { isRendered } from "../visibility.js";

const FRAME_TEXT_DEFAULT_MAX_CHARS = 10_000;
const MAX_SHADOW_HOSTS = 50;

function frames(doc: Document): HTMLIFrameElement[] {
  return Array.from(doc.querySelectorAll("iframe, frame")).filter(isIframe);
}

function frameOrigin(frame: HTMLIFrameElement): string {
  try {
    return new URL(frame.src || "about:blank", frame.ownerDocument.baseURI).href;
  } catch {
    return frame.getAttribute("src") ?? "";
  }
}

export function getFrames(state: PageState): Answer<"get_frames"> {
  const list = frames(state.doc).map((frame, index) => {
    const rect = frame.getBoundingClientRect();
    return {
      index,
      ref_id: summarize(state, frame).ref_id,
      name: frame.name,
      title: frame.title,
      src: frameOrigin(frame),
      same_origin: sameOriginDocument(frame) !== null,
      visible: isRendered(frame),
      rect: {
        x: Math.round(rect.left),
        y: Math.round(rect.top),
        width: Math.round(rect.width),
        height: Math.round(rect.height),
      },
    };
  });
  return { details: { count: list.length, frames: list } };
}

function pickFrame(state: PageState, p: PageCallParams<"iframe_read">): HTMLIFrameElement {
  if (p.ref_id !== undefined) {
    const el = elementForRef(state, p.ref_id);
    if (!isIframe(el)) throw new PageError("bad_params", `iframe_read: ref ${p.ref_id} is not an iframe.`);
    return el;
  }
  const all = frames(state.doc);
  if (p.index !== undefined) {
    const frame = all[p.index];
    if (!frame)
      throw new PageError(
        "not_found",
        `iframe_read: no frame has index ${p.index}; the page has ${all.length}.`,
      );
    return frame;
  }
  const filter = p.url_filter ?? p.urlFilter;
  if (filter) {
    const matching = all.filter((f) => frameOrigin(f).includes(filter));
    if (matching.length !== 1) {
      throw new PageError(
        matching.length ? "ambiguous" : "not_found",
        `iframe_read: ${matching.length} frames have a URL containing ${JSON.stringify(filter)}; pass index or ref_id from get_frames.`,
      );
    }
    return matching[0]!;
  }
  if (all.length === 1) return all[0]!;
  throw new PageError(
    "bad_params",
    `iframe_read: the page has ${all.length} frames; pass index, ref_id or url_filter (see get_frames).`,
  );
}

export function iframeRead(state: PageState, p: PageCallParams<"iframe_read">): Answer<"iframe_read"> {
  const frame = pickFrame(state, p);
  const doc = sameOriginDocument(frame);
  if (!doc?.body) {
    throw new PageError(
      "cross_origin",
      `iframe_read: the frame ${JSON.stringify(frameOrigin(frame))} is cross-origin, so page script cannot read it. Read it through the browser's frame access (the runner's frame context) or promote_iframe.`,
      { cross_origin: true, src: frameOrigin(frame) },
    );
  }
  const max = p.max_chars ?? FRAME_TEXT_DEFAULT_MAX_CHARS;
  const text = collapseWhitespace(renderedText(doc.body));
  const perSelector = new Map<string, number>();
  const fields = Array.from(doc.querySelectorAll("input:not([type=hidden]), select, textarea")).map(
    (field) => {
      const base = roleOf(field) || "textbox";
      const selector = field.id
        ? `#${field.id}`
        : field.getAttribute("name")
          ? `${field.localName}[name="${field.getAttribute("name")}"]`
          : field.localName;
      const matchIndex = perSelector.get(selector) ?? 0;
      perSelector.set(selector, matchIndex + 1);
      return {
        ref_id: summarize(state, field).ref_id,
        label: accessibleName(field, base).name,
        value: truncate((field as HTMLInputElement).value ?? "", 200),
        selector,
        matchIndex,
      };
    },
  );
  return {
    details: {
      src: frameOrigin(frame),
      title: doc.title,
      text: text.length > max ? `${text.slice(0, max)} … truncated: ${text.length - max} more chars` : text,
      fields,
    },
  };
}

export function getShadowDom(
  state: PageState,
  p: PageCallParams<"get_shadow_dom">,
): Answer<"get_shadow_dom"> {
  const hosts: Element[] = [];
  const scope = p.ref_id !== undefined ? elementForRef(state, p.ref_id) : state.doc.documentElement;
  const visit = (root: ParentNode) => {
    for (const el of Array.from(root.querySelectorAll("*"))) {
      const shadow = shadowRootOf(el);
      if (!shadow) continue;
      hosts.push(el);
      visit(shadow);
    }
  };
  if (shadowRootOf(scope)) hosts.push(scope);
  visit(scope);
  const results = hosts.slice(0, MAX_SHADOW_HOSTS).map((host) => {
    const shadow = shadowRootOf(host)!;
    const tree = buildTree(state.doc, state.registry, {
      filter: "all",
      root: host,
      maxChars: p.max_chars ?? 4000,
    });
    return { host: summarize(state, host), tag: host.localName, mode: shadow.mode, tree: tree.tree };
  });
  return {
    details: {
      count: hosts.length,
      hosts: results,
      note: "closed shadow roots are listed only where this script can reach them; the runner can read all of them over BiDi",
    },
  };
}
