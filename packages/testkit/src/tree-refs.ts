/**
 * Refs by role and name, read from the tree's nodes (@webbrain/protocol tree-nodes.ts): what test
 * code that only needs a ref uses. A tree read answers nodes when asked with `nodes: true`
 * (TREE_NODES_PARAM). The printed text is the model's: only the scripted models read refs from it
 * (`findRef`, `callOnNamed`: they play the model), and assertions on what the model sees.
 */
import { TREE_NODES_PARAM, type TreeNode, treeNodesOf } from "@webbrain/protocol";

/** What a ref lookup needs of a tree node (TreeNode, read by shape). */
export interface NamedNode {
  ref?: number;
  role: string;
  name: string;
}

/** The arguments of a tree read that answers nodes beside the text. */
export const WITH_NODES = { [TREE_NODES_PARAM]: true } as const;

/** The nodes a tree read answered (asked with WITH_NODES); throws, showing the result, when it has none. */
export function nodesIn(result: unknown): TreeNode[] {
  const nodes = treeNodesOf(result);
  if (nodes) return nodes;
  throw new Error(`the tree read answered no nodes: ${JSON.stringify(result)?.slice(0, 300)}`);
}

/**
 * The ref of the first node with this role whose name equals `name` (or, failing that, contains
 * it, case-insensitive). Throws with the candidates when nothing matches, so a failing call says why.
 */
export function refByName(nodes: readonly NamedNode[], role: string, name: string): number {
  const candidates = nodes.filter(
    (node): node is NamedNode & { ref: number } => node.ref !== undefined && node.role === role,
  );
  const lower = name.toLowerCase();
  const found =
    candidates.find((node) => node.name === name) ??
    candidates.find((node) => node.name.toLowerCase().includes(lower));
  if (found) return found.ref;
  const seen = candidates.map((node) => `[${node.ref}] ${role} "${node.name}"`).join("; ");
  throw new Error(`no ${role} named "${name}" in the tree (${role} nodes: ${seen || "none"})`);
}

/** Every ref the nodes carry, in tree order. */
export function refsOf(nodes: readonly NamedNode[]): number[] {
  return nodes.flatMap((node) => (node.ref === undefined ? [] : [node.ref]));
}
