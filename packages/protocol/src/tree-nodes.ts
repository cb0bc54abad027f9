/**
 * The accessibility tree as data, for code that needs to know what a ref is (the recipient guard,
 * traces, saved workflows): a node per control line the text shows (`[12] textbox "Name"
 * value="500" required`), with the area lines around it (`form "Shipping"`) and the heading
 * printed before it. The model reads the printed text; code reads these nodes and never parses
 * that text.
 *
 * Where a node sits is decided once, by the printer, from the order and indent of every control,
 * heading and area line of the walk (linkTreeNodes): a node points at its innermost area and its
 * heading by index in the same list. So a tree cut to a budget sends only the controls it shows
 * and the areas and headings those point at, each once, and placeTreeNodes reads them back as
 * labels.
 *
 * No typebox here: the page layer is bundled into pages and imports this module alone (the
 * schema that checks nodes read back from a page is in tree-nodes-schema.ts).
 */

/**
 * One line of the printed tree: a control, a heading or an area (isTreeNodeLine). A type, not an
 * interface, so it is JSON as far as tsc knows (a page answer's `meta.nodes`).
 */
export type TreeNode = {
  /** The ref printed as `[12]`; absent on a structure line (a heading, a form, a region). */
  ref?: number;
  /** The role as printed (`textbox`, `heading`, `clickable`, `circle`). */
  role: string;
  /** The accessible name as printed, "" when the line shows none. */
  name: string;
  /** The value printed as `value="..."`, when the line has one. */
  value?: string;
  /** The state words printed after the name (`checked`, `disabled`, `level=2`), when any. */
  states?: string[];
  /** How many printed lines enclose this one (its indent is two spaces per level). */
  depth: number;
  /** Index, in the same list and before this node, of the innermost area line around it. */
  areaIndex?: number;
  /** Index, in the same list and before this node, of the heading printed before it. */
  headingIndex?: number;
};

/** An enclosing area as a workflow step remembers it: role and name. */
export interface AreaLabel {
  role: string;
  name: string;
}

/** A node with the part of the page it is in. */
export interface PlacedTreeNode extends Omit<TreeNode, "areaIndex" | "headingIndex"> {
  /** Enclosing area lines (AREA_ROLES), outermost first. */
  within: AreaLabel[];
  /** The name of the nearest heading printed before this node. */
  heading?: string;
}

/**
 * Structure roles that say which part of the page a node belongs to: a saved step names its
 * target by them, and the recipient guard tells the conversation list from the open conversation.
 */
export const AREA_ROLES: ReadonlySet<string> = new Set([
  "dialog",
  "alertdialog",
  "navigation",
  "main",
  "banner",
  "contentinfo",
  "complementary",
  "search",
  "form",
  "region",
  "group",
  "radiogroup",
  "menu",
  "menubar",
  "tablist",
  "toolbar",
  "tree",
  "grid",
  "table",
]);

/**
 * The get_accessibility_tree parameter that asks the page for `metadata.nodes` beside the text.
 * Off by default: only code that reads nodes pays for them (the model reads the text).
 */
export const TREE_NODES_PARAM = "nodes";

/**
 * Whether a printed line becomes a node: a control (it has a ref), a heading or an area, the
 * lines code places targets by. Prose, options and other structure lines stay text only, so
 * nodes stay about the size of the names they carry.
 */
export function isTreeNodeLine(role: string, ref: number | undefined): boolean {
  return ref !== undefined || role === "heading" || AREA_ROLES.has(role);
}

/**
 * Links every node to its innermost enclosing area and the heading before it (areaIndex,
 * headingIndex), from order and depth: the one placement rule. An area closes at the next
 * node no deeper than it. Give it every control, heading and area line of a walk, in order.
 */
export function linkTreeNodes(nodes: readonly TreeNode[]): TreeNode[] {
  const linked: TreeNode[] = [];
  const open: number[] = [];
  let heading: number | undefined;
  nodes.forEach((node, index) => {
    while (open.length > 0 && nodes[open.at(-1)!]!.depth >= node.depth) open.pop();
    const { areaIndex: _area, headingIndex: _heading, ...facts } = node;
    const area = open.at(-1);
    linked.push({
      ...facts,
      ...(area !== undefined ? { areaIndex: area } : {}),
      ...(heading !== undefined ? { headingIndex: heading } : {}),
    });
    if (node.role === "heading") heading = index;
    if (AREA_ROLES.has(node.role)) open.push(index);
  });
  return linked;
}

/**
 * The nodes `keep` chooses and the areas and headings they point at (areas of areas too), in
 * order, their indexes renumbered for the shorter list.
 */
export function pickTreeNodes(nodes: readonly TreeNode[], keep: (node: TreeNode) => boolean): TreeNode[] {
  const kept = new Set<number>();
  nodes.forEach((node, index) => {
    if (!keep(node)) return;
    kept.add(index);
    if (node.headingIndex !== undefined) kept.add(node.headingIndex);
    for (let at = node.areaIndex; at !== undefined && !kept.has(at); at = nodes[at]?.areaIndex) kept.add(at);
  });
  const order = [...kept].sort((a, b) => a - b);
  const renumbered = new Map(order.map((old, index) => [old, index]));
  return order.map((old) => {
    const { areaIndex, headingIndex, ...facts } = nodes[old]!;
    const area = areaIndex === undefined ? undefined : renumbered.get(areaIndex);
    const heading = headingIndex === undefined ? undefined : renumbered.get(headingIndex);
    return {
      ...facts,
      ...(area !== undefined ? { areaIndex: area } : {}),
      ...(heading !== undefined ? { headingIndex: heading } : {}),
    };
  });
}

/**
 * Each node with its enclosing areas (outermost first) and the name of the heading before it,
 * read from its indexes. An index that does not point back to an area or a heading (a page that
 * sent something else) places nothing.
 */
export function placeTreeNodes(nodes: readonly TreeNode[]): PlacedTreeNode[] {
  return nodes.map((node, index) => {
    const within: AreaLabel[] = [];
    const seen = new Set<number>();
    for (let at = pointsBack(node.areaIndex, index); at !== undefined && !seen.has(at); ) {
      seen.add(at);
      const area = nodes[at]!;
      if (!AREA_ROLES.has(area.role)) break;
      within.unshift({ role: area.role, name: area.name });
      at = pointsBack(area.areaIndex, at);
    }
    const headingAt = pointsBack(node.headingIndex, index);
    const heading = headingAt === undefined ? undefined : nodes[headingAt];
    const { areaIndex: _area, headingIndex: _heading, ...facts } = node;
    return {
      ...facts,
      within,
      ...(heading?.role === "heading" ? { heading: heading.name } : {}),
    };
  });
}

/** `index` when it points to an earlier node of the list, else undefined. */
function pointsBack(index: number | undefined, from: number): number | undefined {
  return index !== undefined && Number.isInteger(index) && index >= 0 && index < from ? index : undefined;
}

/** The node printed with `ref` (a number or its digits, as a ref_id arrives), if any. */
export function nodeWithRef<N extends TreeNode>(nodes: readonly N[], ref: unknown): N | undefined {
  if (ref === undefined || ref === null || ref === "") return undefined;
  const wanted = Number(ref);
  if (!Number.isInteger(wanted)) return undefined;
  return nodes.find((node) => node.ref === wanted);
}
