/**
 * What a person sees in an inline <svg> drawing, as tree items: each visible shape or text says
 * what it is (circle, rectangle, triangle, line, text ...), its colour in words, its text or
 * label, and where it is: centre and size in viewport CSS px (the coordinates `click` takes), a
 * line by its two ends. Shapes the page wired for input get refs, as HTML controls do.
 *
 * Invariants:
 * - Only drawings are walked. The caller never asks for an SVG inside a control (an icon in a
 *   button keeps its one line), and an SVG is content only when it holds text, a shape wired
 *   for input, or is at least LARGE_DRAWING_PX on both sides (a chart, a diagram): a small
 *   decorative icon prints nothing, as before.
 * - Bounded: at most MAX_ELEMENTS_VISITED elements are styled and measured; at most
 *   MAX_PLAIN_ITEMS lines for shapes without a ref and MAX_CONTROL_ITEMS for shapes with one;
 *   what is left out is counted for one marker line.
 * - Reads only: the tree walker gives refs and prints (see TreeWalk's svg hook).
 */
import { colourWord, parseComputedColour } from "./colour-names.js";
import { collapseWhitespace, truncate } from "./dom-realm.js";
import { interactiveRole } from "./element-facts.js";
import { nativeDom, type StyleReader } from "./native-dom.js";
import { roleOf } from "./roles.js";

/** An SVG this large on both sides is a drawing worth describing even without text or controls. */
export const LARGE_DRAWING_PX = 100;
export const MAX_ELEMENTS_VISITED = 600;
/** Lines for shapes a person only looks at (a chart's 100 dots would drown the page). */
export const MAX_PLAIN_ITEMS = 30;
/** Lines for shapes that take input (a map's clickable regions all need their refs). */
export const MAX_CONTROL_ITEMS = 100;
const TEXT_MAX_CHARS = 80;

/** Elements that draw nothing themselves (definitions, metadata, resources). */
const NOT_DRAWN: ReadonlySet<string> = new Set([
  "defs",
  "title",
  "desc",
  "metadata",
  "style",
  "script",
  "clippath",
  "clipPath",
  "mask",
  "pattern",
  "marker",
  "symbol",
  "lineargradient",
  "linearGradient",
  "radialgradient",
  "radialGradient",
  "filter",
  "foreignObject",
]);
/** Containers: walked into, printed only when they take input themselves. */
const GROUP_TAGS: ReadonlySet<string> = new Set(["g", "a", "svg", "switch"]);
const SHAPE_WORDS: Readonly<Record<string, string>> = {
  circle: "circle",
  ellipse: "ellipse",
  rect: "rectangle",
  polygon: "polygon",
  polyline: "polyline",
  line: "line",
  path: "path",
  text: "text",
  image: "image",
  use: "shape",
};

export interface SvgItem {
  el: Element;
  /** Takes input: the walker gives it a ref. */
  control: boolean;
  /** What it is: a shape word, or the role of a wired group/link. */
  kind: string;
  name: string;
  /** What follows the name on its line: colour, position, size (starts with a space or is empty). */
  detail: string;
  /** Levels below the drawing's first level (shapes inside a wired group are one deeper). */
  depth: number;
}

export interface SvgContent {
  items: SvgItem[];
  /** Shapes and texts left out by the caps. */
  omitted: number;
  /** `svg at x,y WxH`: the drawing's own box, for a header when the svg printed no line. */
  header: string;
}

export interface SvgReadContext {
  styleOf: StyleReader;
  isWired(el: Element): boolean;
  /** Filter "interactive": only shapes that take input. */
  controlsOnly: boolean;
  /** Filter "visible": only shapes that intersect the viewport of this size. */
  viewport: { width: number; height: number } | undefined;
  /** The svg's own cursor is a pointer (a shape inheriting it is no control by that alone). */
  svgPointer: boolean;
}

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

class SvgReader {
  readonly items: SvgItem[] = [];
  omitted = 0;
  visited = 0;
  plain = 0;
  controls = 0;
  hasText = false;
  readonly #ctx: SvgReadContext;

  constructor(ctx: SvgReadContext) {
    this.#ctx = ctx;
  }

  walk(parent: Element, depth: number, parentPointer: boolean, insideControl: boolean): void {
    const dom = nativeDom();
    for (let child = dom.firstChild(parent); child; child = dom.nextSibling(child)) {
      if (dom.nodeType(child) !== 1) continue;
      const el = child as Element;
      if (this.visited >= MAX_ELEMENTS_VISITED) {
        this.omitted += 1 + el.getElementsByTagName("*").length;
        continue;
      }
      this.visit(el, dom.localName(el), depth, parentPointer, insideControl);
    }
  }

  visit(el: Element, tag: string, depth: number, parentPointer: boolean, insideControl: boolean): void {
    if (NOT_DRAWN.has(tag)) return;
    this.visited++;
    const dom = nativeDom();
    const names = dom.hasAttributes(el) ? dom.getAttributeNames(el) : [];
    if (names.includes("aria-hidden") && dom.getAttribute(el, "aria-hidden") === "true") return;
    const style = this.#ctx.styleOf(el);
    if (dom.getPropertyValue(style, "display") === "none") return;
    const pointer = dom.getPropertyValue(style, "cursor") === "pointer";
    const role = roleOf(el, names, tag);
    const control =
      !insideControl &&
      (interactiveRole(el, role, pointer, parentPointer, names, tag) !== undefined || this.#ctx.isWired(el));
    if (GROUP_TAGS.has(tag)) {
      if (!control) {
        this.walk(el, depth, pointer, insideControl);
        return;
      }
      const box = boxOf(el);
      if (!this.#shows(box)) return;
      this.#add({
        el,
        control,
        kind: role || "group",
        name: labelOf(el, names),
        detail: placeOf(box),
        depth,
      });
      this.walk(el, depth + 1, pointer, true);
      return;
    }
    const word = SHAPE_WORDS[tag];
    if (!word) return;
    const visibility = dom.getPropertyValue(style, "visibility");
    if (visibility === "hidden" || visibility === "collapse") return;
    if (Number(dom.getPropertyValue(style, "opacity")) === 0) return;
    const fill = paint(style, "fill", "fill-opacity");
    const stroke = paint(style, "stroke", "stroke-opacity");
    if (!fill && !stroke && tag !== "image" && tag !== "use") return;
    const box = boxOf(el);
    if (box.width === 0 && box.height === 0) return;
    if (!this.#shows(box)) return;
    const text =
      tag === "text" ? truncate(collapseWhitespace(dom.textContent(el) ?? ""), TEXT_MAX_CHARS) : "";
    if (tag === "text" && !text) return;
    if (text) this.hasText = true;
    const name = text || labelOf(el, names);
    const kind = shapeKind(el, tag, word);
    const colour =
      tag === "line" || tag === "polyline" ? stroke : fill ? fill : stroke && `outline ${stroke}`;
    const where = tag === "line" ? lineEnds(el) : undefined;
    const detail = `${colour ? ` ${colour}` : ""}${where ?? placeOf(box)}`;
    this.#add({ el, control, kind, name, detail, depth });
  }

  #shows(box: Box): boolean {
    const view = this.#ctx.viewport;
    if (!view) return true;
    return (
      box.left + box.width > 0 && box.top + box.height > 0 && box.left < view.width && box.top < view.height
    );
  }

  #add(item: SvgItem): void {
    if (item.control) {
      if (this.controls >= MAX_CONTROL_ITEMS) {
        this.omitted++;
        return;
      }
      this.controls++;
    } else {
      if (this.#ctx.controlsOnly) return;
      if (this.plain >= MAX_PLAIN_ITEMS) {
        this.omitted++;
        return;
      }
      this.plain++;
    }
    this.items.push(item);
  }
}

/**
 * The drawing inside `svg`, or undefined when it is no content (a small icon of paths only, or
 * nothing drawn at all).
 */
export function readSvgContent(svg: Element, ctx: SvgReadContext): SvgContent | undefined {
  const box = boxOf(svg);
  const reader = new SvgReader(ctx);
  reader.walk(svg, 0, ctx.svgPointer, false);
  const large = box.width >= LARGE_DRAWING_PX && box.height >= LARGE_DRAWING_PX;
  if (!large && !reader.hasText && reader.controls === 0) return undefined;
  if (reader.items.length === 0 && reader.omitted === 0) return undefined;
  return { items: reader.items, omitted: reader.omitted, header: `svg${placeOf(box)}` };
}

export function boxOf(el: Element): Box {
  const rect = nativeDom().getBoundingClientRect(el);
  return { left: rect.left, top: rect.top, width: rect.width, height: rect.height };
}

/** ` at cx,cy WxH`: the box's centre and size, rounded to whole CSS px. */
export function placeOf(box: Box): string {
  const cx = Math.round(box.left + box.width / 2);
  const cy = Math.round(box.top + box.height / 2);
  return ` at ${cx},${cy} ${Math.round(box.width)}x${Math.round(box.height)}`;
}

/** A paint in words, or "" when it paints nothing (none, transparent, zero opacity). */
function paint(style: CSSStyleDeclaration, property: string, opacityProperty: string): string {
  const dom = nativeDom();
  const value = dom.getPropertyValue(style, property);
  if (!value || value === "none") return "";
  if (Number(dom.getPropertyValue(style, opacityProperty) || "1") === 0) return "";
  if (value.startsWith("url(")) return "gradient";
  const rgb = parseComputedColour(value);
  return rgb ? colourWord(rgb) : "";
}

/** A person's word for the shape: a 3-point polygon is a triangle, a round ellipse a circle. */
function shapeKind(el: Element, tag: string, word: string): string {
  if (tag === "polygon") {
    const count = (nativeDom().getAttribute(el, "points") ?? "").trim().split(/[\s,]+/).length / 2;
    if (count === 3) return "triangle";
    if (count === 4) return "quadrilateral";
    return word;
  }
  if (tag === "ellipse") {
    const rx = Number(nativeDom().getAttribute(el, "rx"));
    const ry = Number(nativeDom().getAttribute(el, "ry"));
    return rx === ry ? "circle" : word;
  }
  return word;
}

/** ` from x1,y1 to x2,y2` in viewport px (the line's own transform and the svg's viewBox applied). */
function lineEnds(el: Element): string | undefined {
  const ctm = (el as SVGGraphicsElement).getScreenCTM?.();
  if (!ctm) return undefined;
  const dom = nativeDom();
  const num = (name: string) => Number(dom.getAttribute(el, name) ?? 0) || 0;
  const at = (x: number, y: number) =>
    `${Math.round(ctm.a * x + ctm.c * y + ctm.e)},${Math.round(ctm.b * x + ctm.d * y + ctm.f)}`;
  return ` from ${at(num("x1"), num("y1"))} to ${at(num("x2"), num("y2"))}`;
}

/** aria-label, else a <title> child: what a shape or group is called. */
function labelOf(el: Element, names: readonly string[]): string {
  const dom = nativeDom();
  const aria = names.includes("aria-label")
    ? collapseWhitespace(dom.getAttribute(el, "aria-label") ?? "")
    : "";
  if (aria) return aria;
  for (let child = dom.firstChild(el); child; child = dom.nextSibling(child)) {
    if (dom.nodeType(child) === 1 && dom.localName(child as Element) === "title")
      return truncate(collapseWhitespace(dom.textContent(child) ?? ""), TEXT_MAX_CHARS);
  }
  return "";
}
