/**
 * A scripted page's tree for agent tests, written as data (the nodes the page layer reports) and
 * printed the way the page layer prints it (`  [2] button "Save" disabled`), so a fake page can
 * answer both what the model reads and what code reads. Printing only: nothing parses the text.
 */
import type { TreeNode } from "@webbrain/protocol";

/** One node per line: `line(depth, role, name, { ref, value, states })`. */
export function line(
  depth: number,
  role: string,
  name = "",
  extra: Pick<TreeNode, "ref" | "value" | "states"> = {},
): TreeNode {
  return { depth, role, name, ...extra };
}

/** The nodes as tree text, one line each, two spaces of indent per depth. */
export function printTree(nodes: readonly TreeNode[]): string {
  return nodes
    .map((node) => {
      let text = `${"  ".repeat(node.depth)}${node.ref !== undefined ? `[${node.ref}] ` : ""}${node.role}`;
      if (node.name) text += ` ${JSON.stringify(node.name)}`;
      if (node.value !== undefined) text += ` value=${JSON.stringify(node.value)}`;
      if (node.states?.length) text += ` ${node.states.join(" ")}`;
      return text;
    })
    .join("\n");
}
