/**
 * Realm-agnostic DOM access. The layer runs in a BiDi sandbox or a content script (Xray views of
 * the page) and walks same-origin iframes, so `instanceof HTMLInputElement` is unreliable: type
 * checks go through `nodeType` and tag names, and styles come from the element's own window.
 */
import { nativeDom } from "./native-dom.js";
import { SHADOW_HOST_TAG_NAMES } from "./protocol.js";

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const DOCUMENT_FRAGMENT_NODE = 11;

export function isElement(node: Node | null | undefined): node is Element {
  return !!node && node.nodeType === ELEMENT_NODE;
}

export function isInput(el: Element): el is HTMLInputElement {
  return el.localName === "input";
}

export function isTextArea(el: Element): el is HTMLTextAreaElement {
  return el.localName === "textarea";
}

export function isSelect(el: Element): el is HTMLSelectElement {
  return el.localName === "select";
}

export function isIframe(el: Element): el is HTMLIFrameElement {
  return el.localName === "iframe" || el.localName === "frame";
}

export function windowOf(el: Element): Window {
  return el.ownerDocument.defaultView ?? window;
}

export function styleOf(el: Element): CSSStyleDeclaration {
  return windowOf(el).getComputedStyle(el);
}

/** Standard elements that can host a shadow root (custom elements can too). */
const SHADOW_HOST_TAGS: ReadonlySet<string> = new Set(SHADOW_HOST_TAG_NAMES);

type PrivilegedElement = Element & { openOrClosedShadowRoot?: ShadowRoot | null };

/**
 * Whether this realm exposes `openOrClosedShadowRoot` (content scripts do, BiDi sandboxes do
 * not). Fixed per realm, so asked once: from a sandbox a missing property costs a slow lookup
 * through the wrapper on every element.
 */
let privilegedShadowRoots: boolean | undefined;

/** A shadow root the page script may read: open ones, and closed ones where Firefox exposes them. */
export function shadowRootOf(el: Element, tag?: string): ShadowRoot | null {
  privilegedShadowRoots ??= "openOrClosedShadowRoot" in el;
  if (privilegedShadowRoots) {
    // May also return shadow roots of elements that cannot host open ones (UA widgets): keep
    // asking every element here.
    return (el as PrivilegedElement).openOrClosedShadowRoot ?? el.shadowRoot ?? null;
  }
  const dom = nativeDom();
  const name = tag ?? dom.localName(el);
  if (!SHADOW_HOST_TAGS.has(name) && !name.includes("-")) return null;
  return dom.shadowRoot(el) ?? null;
}

/** Parent in the composed tree: crosses shadow roots to their host. */
export function composedParent(node: Node): Node | null {
  if (node.parentNode && node.parentNode.nodeType === DOCUMENT_FRAGMENT_NODE) {
    return (node.parentNode as ShadowRoot).host ?? null;
  }
  return node.parentNode;
}

export function composedContains(ancestor: Node, node: Node | null): boolean {
  for (let current: Node | null = node; current; current = composedParent(current)) {
    if (current === ancestor) return true;
  }
  return false;
}

/**
 * Offset of an element's document inside the viewport of `viewport`, the window whose document
 * the layer runs on (same-origin frames only). It stops there, not at the top: the runner
 * presses a frame's own plan in the frame's browsing context, whose viewport is the frame's,
 * so a frame whose parent is same-origin must not add the parent's offset.
 */
export function frameOffset(el: Element, viewport: Window | null): { x: number; y: number } {
  let x = 0;
  let y = 0;
  let win: Window | null = el.ownerDocument.defaultView;
  while (win && win !== viewport && win.frameElement) {
    const frame = win.frameElement;
    const rect = frame.getBoundingClientRect();
    const style = styleOf(frame);
    x +=
      rect.left +
      (Number.parseFloat(style.borderLeftWidth) || 0) +
      (Number.parseFloat(style.paddingLeft) || 0);
    y +=
      rect.top + (Number.parseFloat(style.borderTopWidth) || 0) + (Number.parseFloat(style.paddingTop) || 0);
    win = frame.ownerDocument.defaultView;
  }
  return { x, y };
}

/** The element at a point, descending into open shadow roots and same-origin iframes. */
export function deepElementFromPoint(doc: Document, x: number, y: number): Element | null {
  let hit: Element | null = doc.elementFromPoint(x, y);
  let offsetX = x;
  let offsetY = y;
  for (let guard = 0; hit && guard < 32; guard++) {
    const root = shadowRootOf(hit);
    if (root) {
      const inner = root.elementFromPoint(offsetX, offsetY);
      if (inner && inner !== hit) {
        hit = inner;
        continue;
      }
    }
    if (isIframe(hit)) {
      const inner = sameOriginDocument(hit);
      if (inner) {
        const rect = hit.getBoundingClientRect();
        offsetX -= rect.left + hit.clientLeft;
        offsetY -= rect.top + hit.clientTop;
        const next = inner.elementFromPoint(offsetX, offsetY);
        if (next) {
          hit = next;
          continue;
        }
      }
    }
    break;
  }
  return hit;
}

export function sameOriginDocument(frame: HTMLIFrameElement): Document | null {
  try {
    return frame.contentDocument ?? null;
  } catch {
    return null;
  }
}

/** Text as rendered (CSS-aware line breaks, hidden parts left out), unlike textContent. */
export function renderedText(el: Element): string {
  // biome-ignore lint/performance/useDomNodeTextContent: rendered text is the point here.
  return (el as HTMLElement).innerText ?? el.textContent ?? "";
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
