/**
 * Tree nodes read back from a page (tree-nodes.ts): a page result crosses a realm and may come
 * from a page that changed our script's globals, so code checks the shape before trusting it.
 */
import { type Static, Type } from "typebox";
import { Value } from "typebox/value";
import { TREE_NODES_PARAM, type TreeNode } from "./tree-nodes.js";

export const TreeNodeSchema = Type.Object({
  ref: Type.Optional(Type.Integer({ minimum: 1 })),
  role: Type.String(),
  name: Type.String(),
  value: Type.Optional(Type.String()),
  states: Type.Optional(Type.Array(Type.String())),
  depth: Type.Integer({ minimum: 0 }),
  areaIndex: Type.Optional(Type.Integer({ minimum: 0 })),
  headingIndex: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const TreeNodesSchema = Type.Array(TreeNodeSchema);

/** The schema and the interface describe the same node (a compile error when they drift). */
const _sameShape: [Static<typeof TreeNodeSchema>, TreeNode] extends [TreeNode, Static<typeof TreeNodeSchema>]
  ? true
  : never = true;
void _sameShape;

/**
 * The nodes a get_accessibility_tree result carries (`meta.nodes`, present when the call passed
 * TREE_NODES_PARAM), or undefined when it has none or they are not nodes.
 */
export function treeNodesOf(result: unknown): TreeNode[] | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const meta = (result as { meta?: unknown }).meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const nodes = (meta as Record<string, unknown>)[TREE_NODES_PARAM];
  return Value.Check(TreeNodesSchema, nodes) ? nodes : undefined;
}
