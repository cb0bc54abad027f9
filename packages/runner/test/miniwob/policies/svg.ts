/**
 * Drawing tasks: what the tree says about an inline SVG's shapes (`[4] circle red at 52,120
 * 20x20`, `text "Q" cyan at ...`, `line black from 0,75 to 150,75`) is all these policies read.
 * Shapes with refs are clicked by ref; a point inside a drawing (a circle's centre, a midpoint)
 * is clicked by x,y with the `click` tool, the coordinates the tree prints.
 */
import {
  actions,
  type Call,
  click,
  clickSubmit,
  named,
  type Policy,
  type Step,
  sequence,
  type Tree,
  type TreeItem,
} from "./tree.js";

/** One drawn shape or text, as its tree line says. */
export interface Shape {
  ref: number | undefined;
  kind: string;
  name: string;
  colour: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

const SHAPE_LINE =
  /^(?:\[(\d+)\]\s+)?(circle|ellipse|rectangle|triangle|quadrilateral|polygon|polyline|path|text|image|shape)(?:\s+"((?:[^"\\]|\\.)*)")?(.*?) at (-?\d+),(-?\d+) (\d+)x(\d+)$/;
const AREA_LINE = /^(?:\[(\d+)\]\s+)?(?:clickable|svg|img)\b.* at (-?\d+),(-?\d+) (\d+)x(\d+)$/;

export function shapesIn(tree: Tree): Shape[] {
  const shapes: Shape[] = [];
  for (const line of tree.lines) {
    const m = SHAPE_LINE.exec(line.text);
    if (!m) continue;
    shapes.push({
      ref: m[1] ? Number(m[1]) : undefined,
      kind: m[2]!,
      name: (m[3] ?? "").replace(/\\(.)/g, "$1"),
      colour: (m[4] ?? "").trim(),
      x: Number(m[5]),
      y: Number(m[6]),
      width: Number(m[7]),
      height: Number(m[8]),
    });
  }
  return shapes;
}

/** The drawing's own box (its header line, or its ref line when the page listens on it). */
function drawingBox(tree: Tree): { left: number; top: number; right: number; bottom: number } | undefined {
  for (const line of tree.lines) {
    const m = AREA_LINE.exec(line.text);
    if (!m) continue;
    const [x, y, w, h] = [Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])];
    return { left: x - w / 2, top: y - h / 2, right: x + w / 2, bottom: y + h / 2 };
  }
  return undefined;
}

const clickAt = (x: number, y: number): Call => ({
  name: "click",
  args: { x: Math.round(x), y: Math.round(y) },
});

/** MiniWoB's colour words, as the tree names them (aqua is said cyan). */
const COLOUR_WORDS: Record<string, string> = { aqua: "cyan" };
const LARGE_SHAPE_PX = 15;
/** A glyph drawn at 20px is about 26px tall, at 10px about 15px. */
const LARGE_TEXT_PX = 20;

const isLarge = (s: Shape) => (s.kind === "text" ? s.height >= LARGE_TEXT_PX : s.width >= LARGE_SHAPE_PX);

/** Does a shape match MiniWoB's lossy description ("large red circle", "small Q", "blue item")? */
export function matchesDescription(s: Shape, description: string): boolean {
  const words = description.trim().split(/\s+/);
  const what = words.pop() ?? "item";
  for (const word of words) {
    if (word === "large" && !isLarge(s)) return false;
    if (word === "small" && isLarge(s)) return false;
    if (word !== "large" && word !== "small" && s.colour !== (COLOUR_WORDS[word] ?? word)) return false;
  }
  if (what === "item") return true;
  if (what === "shape") return s.kind !== "text";
  if (what === "letter") return s.kind === "text" && /^[a-z]$/i.test(s.name);
  if (what === "digit") return s.kind === "text" && /^\d$/.test(s.name);
  if (what.length === 1) return s.kind === "text" && s.name === what;
  return s.kind === what;
}

/** Click the first shape that matches the description. */
export function clickShape(description: string): Policy {
  return (tree, history) => {
    if (actions(history).length > 0) return { done: `clicked a ${description}` };
    const target = shapesIn(tree).find((s) => s.ref !== undefined && matchesDescription(s, description));
    return target?.ref !== undefined
      ? click({ ref: target.ref })
      : { done: `no ${description} in the drawing` };
  };
}

/** Count the shapes that match, then press the button with that number. */
export function countShapes(description: string): Policy {
  return (tree, history) => {
    if (actions(history).length > 0) return { done: "answered" };
    const count = shapesIn(tree).filter((s) => matchesDescription(s, description)).length;
    const button = tree.items.find((i) => i.role === "button" && i.name.trim() === String(count));
    return button ? click(button) : { done: `no button for ${count}` };
  };
}

const FIGURE_BUTTONS: Record<string, string> = {
  circle: "Circle",
  rectangle: "Rectangle",
  triangle: "Triangle",
};

/** Name the one figure: its shape, or Letter / Number for a text. */
export const identifyShape: Policy = (tree, history) => {
  if (actions(history).length > 0) return { done: "answered" };
  const figure = shapesIn(tree)[0];
  if (!figure) return { done: "no figure in the tree" };
  const answer =
    figure.kind === "text" ? (/^\d$/.test(figure.name) ? "Number" : "Letter") : FIGURE_BUTTONS[figure.kind];
  const button = answer ? named(tree.items, answer, ["button"]) : undefined;
  return button ? click(button) : { done: `no button for a ${figure.kind}` };
};

/** Click the grid point (x,y): the points' columns run -2..2 left to right, rows 2..-2 top down. */
export function gridCoordinate(x: number, y: number): Policy {
  return (tree, history) => {
    if (actions(history).length > 0) return { done: "clicked" };
    const points = shapesIn(tree).filter((s) => s.kind === "circle" && s.ref !== undefined);
    const columns = [...new Set(points.map((p) => p.x))].sort((a, b) => a - b);
    const rows = [...new Set(points.map((p) => p.y))].sort((a, b) => a - b);
    const half = Math.floor(columns.length / 2);
    const column = columns[x + half];
    const row = rows[half - y];
    const target = points.find((p) => p.x === column && p.y === row);
    return target?.ref !== undefined ? click({ ref: target.ref }) : { done: `no point (${x},${y})` };
  };
}

/**
 * Click the numbers 1..n in order. After the first click the page hides the numbers under
 * blank squares: the squares are told apart by where each number was (the first tree read).
 */
export const ascendingNumbers: Policy = (tree, history, earlier = []) => {
  const k = actions(history).length + 1;
  const first = earlier[0] ?? tree;
  const numbers = shapesIn(first).filter((s) => s.kind === "text" && /^\d+$/.test(s.name));
  const wanted = numbers.find((s) => Number(s.name) === k);
  if (!wanted) return { done: "clicked every number" };
  const shown = shapesIn(tree).find((s) => s.kind === "text" && s.name === String(k) && s.ref !== undefined);
  if (shown?.ref !== undefined) return click({ ref: shown.ref });
  const squares = shapesIn(tree).filter((s) => s.kind === "rectangle" && s.ref !== undefined);
  const distance = (s: Shape) => Math.hypot(s.x - wanted.x, s.y - wanted.y);
  const nearest = squares.sort((a, b) => distance(a) - distance(b))[0];
  return nearest?.ref !== undefined ? click({ ref: nearest.ref }) : { done: `no square where ${k} was` };
};

type Point = { x: number; y: number };
const circles = (tree: Tree, colour: string) =>
  shapesIn(tree).filter((s) => s.kind === "circle" && s.colour === colour);

/** Click a point the tree's shapes give, then Submit. */
function placePointThenSubmit(point: (tree: Tree) => Point | undefined): Policy {
  const place: Step = (tree) => {
    const p = point(tree);
    return p ? clickAt(p.x, p.y) : undefined;
  };
  return sequence([place, clickSubmit]);
}

export const circleCenter = placePointThenSubmit((tree) => {
  const circle = shapesIn(tree).find((s) => s.kind === "circle");
  return circle ? { x: circle.x, y: circle.y } : undefined;
});

export const findMidpoint = placePointThenSubmit((tree) => {
  const [a, b] = circles(tree, "black");
  return a && b ? { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 } : undefined;
});

/** The distance from the vertex a placed point keeps (far enough for a clear angle). */
const ARM_PX = 35;

/** A point at ARM_PX from the vertex along `direction`, kept inside the drawing if it can be. */
function along(tree: Tree, vertex: Point, directions: Point[]): Point | undefined {
  const box = drawingBox(tree);
  const inside = (p: Point) =>
    !box || (p.x > box.left + 4 && p.x < box.right - 4 && p.y > box.top + 4 && p.y < box.bottom - 4);
  const points = directions
    .map((d) => {
      const length = Math.hypot(d.x, d.y);
      return length === 0
        ? undefined
        : { x: vertex.x + (d.x / length) * ARM_PX, y: vertex.y + (d.y / length) * ARM_PX };
    })
    .filter((p): p is Point => p !== undefined);
  return points.find(inside) ?? points[0];
}

/** A point at a right angle from the black point, around the blue vertex. */
export const rightAngle = placePointThenSubmit((tree) => {
  const [vertex] = circles(tree, "blue");
  const [arm] = circles(tree, "black");
  if (!vertex || !arm) return undefined;
  const dx = arm.x - vertex.x;
  const dy = arm.y - vertex.y;
  return along(tree, vertex, [
    { x: -dy, y: dx },
    { x: dy, y: -dx },
  ]);
});

/** A point on the line halfway between the two black arms, from the blue vertex. */
export const bisectAngle = placePointThenSubmit((tree) => {
  const [vertex] = circles(tree, "blue");
  const [a, b] = circles(tree, "black");
  if (!vertex || !a || !b) return undefined;
  const unit = (p: Point) => {
    const length = Math.hypot(p.x - vertex.x, p.y - vertex.y) || 1;
    return { x: (p.x - vertex.x) / length, y: (p.y - vertex.y) / length };
  };
  const ua = unit(a);
  const ub = unit(b);
  return along(tree, vertex, [{ x: ua.x + ub.x, y: ua.y + ub.y }]);
});

/**
 * Drag the one shape in a direction, then Submit. drag_drop drops onto another ref, and the
 * tree gives HTML controls no position: only "down" has a known target (Submit, printed after
 * the drawing, sits below it).
 */
export function dragShape(direction: string): Policy {
  return sequence([
    (tree) => {
      const shape = shapesIn(tree).find((s) => s.ref !== undefined);
      const submit = tree.items.find((i) => i.role === "button" && /submit/i.test(i.name));
      if (direction !== "down" || shape?.ref === undefined || !submit) return undefined;
      return { name: "drag_drop", args: { from_ref_id: shape.ref, to_ref_id: submit.ref } };
    },
    clickSubmit,
  ]);
}

/** Buy once the shown price is below the limit; until then, look again. */
export function buyBelow(limit: number): Policy {
  return (tree, history) => {
    if (actions(history).some((c) => c.name === "click_ax")) return { done: "bought" };
    const priceLine = tree.lines.find((l) => /\$\d/.test(l.text) && !/less than/.test(l.text));
    const price = Number(/\$(\d+(?:\.\d+)?)/.exec(priceLine?.text ?? "")?.[1] ?? Number.NaN);
    const buy: TreeItem | undefined = named(tree.items, "Buy", ["button"]);
    if (buy && price <= limit) return click(buy); // the page takes the limit itself too
    return { name: "get_accessibility_tree", args: {} };
  };
}
