/**
 * The accessibility tree as data: what the page layer printed, one node per element line
 * (`[12] textbox "Name" value="500" required`, or a structure line such as `form "Shipping"`),
 * for code that needs to know what a ref is (the recipient guard, traces, saved workflows).
 * The model reads the printed text; code reads these nodes and never parses that text.
 *
 * A node is flat: its `depth` (printed ancestors) is all the page sends, and `placeTreeNodes`
 * derives where each node sits (enclosing areas, the heading before it) from the order and the
 * depths, so the wire carries each area's name once rather than once per node inside it.
 *
 * No typebox here: the page layer is bundled into pages and imports these types alone (the
 * schema that checks nodes read back from a page is in tree-nodes-schema.ts).
 */

/** One element line of the printed tree. */
export interface TreeNode {
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
}

/** An enclosing area as a workflow step remembers it: role and name. */
export interface AreaLabel {
  role: string;
  name: string;
}

/** A node with the part of the page it is in. */
export interface PlacedTreeNode extends TreeNode {
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

/** Each node with its enclosing areas and the heading before it, in tree order. */
export function placeTreeNodes(nodes: readonly TreeNode[]): PlacedTreeNode[] {
  const placed: PlacedTreeNode[] = [];
  const areas: { depth: number; area: AreaLabel }[] = [];
  let heading: string | undefined;
  for (const node of nodes) {
    while (areas.length > 0 && areas.at(-1)!.depth >= node.depth) areas.pop();
    placed.push({
      ...node,
      within: areas.map((entry) => entry.area),
      ...(heading !== undefined ? { heading } : {}),
    });
    if (node.role === "heading") heading = node.name;
    if (AREA_ROLES.has(node.role))
      areas.push({ depth: node.depth, area: { role: node.role, name: node.name } });
  }
  return placed;
}

/** The node printed with `ref` (a number or its digits, as a ref_id arrives), if any. */
export function nodeWithRef<N extends TreeNode>(nodes: readonly N[], ref: unknown): N | undefined {
  if (ref === undefined || ref === null || ref === "") return undefined;
  const wanted = Number(ref);
  if (!Number.isInteger(wanted)) return undefined;
  return nodes.find((node) => node.ref === wanted);
}
