/**
 * Finding an element again by what it was, not by its old ref number: a saved workflow step
 * names its target by role, accessible name and the part of the page it sits in (the
 * structure lines above it in the tree: form, dialog, region, navigation..., and the nearest
 * heading before it). Replay reads a fresh tree and looks for exactly one element that fits.
 *
 * Invariant: a lookup answers one ref or a reason; it never guesses between two candidates
 * (a wrong click is worse than a stop).
 */

/** Structure roles that say which part of the page a line belongs to. */
const AREA_ROLES: ReadonlySet<string> = new Set([
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

/** One line of a tree, as far as targets go. */
export interface TreeNode {
  ref?: string;
  role: string;
  name: string;
  value?: string;
  depth: number;
  /** Enclosing structure lines (outermost first). */
  within: AreaLabel[];
  /** The nearest heading printed before this line. */
  heading?: string;
}

export interface AreaLabel {
  role: string;
  name: string;
}

/** What a step acted on, recorded when it ran. */
export interface TargetDescriptor {
  role: string;
  name: string;
  within: AreaLabel[];
  heading?: string;
}

export type TargetMatch = { ok: true; ref: string; node: TreeNode } | { ok: false; reason: string };

const LINE = /^( *)(?:\[(\d+)\] )?([a-z]+)(?: ("(?:[^"\\]|\\.)*"))?(?: value=("(?:[^"\\]|\\.)*"))?(?: .*)?$/;

function unquote(text: string | undefined): string {
  if (text === undefined) return "";
  try {
    return JSON.parse(text) as string;
  } catch {
    return text.slice(1, -1);
  }
}

/** Parses the tree text into the lines that carry a role (refs, headings, areas). */
export function parseTree(tree: string): TreeNode[] {
  const nodes: TreeNode[] = [];
  const stack: { depth: number; area: AreaLabel }[] = [];
  let heading: string | undefined;
  for (const raw of tree.split("\n")) {
    const match = LINE.exec(raw);
    if (!match) continue;
    const [, indent = "", ref, role = "", quotedName, quotedValue] = match;
    const isArea = AREA_ROLES.has(role);
    if (!ref && !isArea && role !== "heading") continue;
    const depth = indent.length / 2;
    while (stack.length && stack.at(-1)!.depth >= depth) stack.pop();
    const name = unquote(quotedName);
    const node: TreeNode = {
      role,
      name,
      depth,
      within: stack.map((entry) => entry.area),
      ...(ref ? { ref } : {}),
      ...(quotedValue !== undefined ? { value: unquote(quotedValue) } : {}),
      ...(heading !== undefined ? { heading } : {}),
    };
    nodes.push(node);
    if (role === "heading") heading = name;
    if (isArea) stack.push({ depth, area: { role, name } });
  }
  return nodes;
}

/** What ref `ref` was in `tree`, or undefined when the tree does not show it. */
export function describeRef(tree: string, ref: string): TargetDescriptor | undefined {
  const node = parseTree(tree).find((n) => n.ref === ref);
  if (!node) return undefined;
  return {
    role: node.role,
    name: node.name,
    within: node.within,
    ...(node.heading !== undefined ? { heading: node.heading } : {}),
  };
}

export function formatTarget(target: TargetDescriptor): string {
  const where = target.within.map((a) => (a.name ? `${a.role} "${a.name}"` : a.role)).join(" > ");
  return `${target.role} "${target.name}"${where ? ` in ${where}` : ""}`;
}

function containsAreas(node: TreeNode, areas: readonly AreaLabel[]): boolean {
  let from = 0;
  for (const area of areas) {
    const at = node.within.findIndex((a, i) => i >= from && a.role === area.role && a.name === area.name);
    if (at === -1) return false;
    from = at + 1;
  }
  return true;
}

/** The one element of `tree` that is `target`, or why there is none. */
export function findTarget(tree: string, target: TargetDescriptor): TargetMatch {
  const nodes = parseTree(tree).filter((n) => n.ref !== undefined);
  const named = nodes.filter((n) => n.role === target.role && n.name === target.name);
  const what = formatTarget(target);
  if (named.length === 0) {
    const sameRole = nodes.filter((n) => n.role === target.role).map((n) => `"${n.name}"`);
    return {
      ok: false,
      reason: `no ${target.role} named "${target.name}" on the page (${target.role} elements now: ${sameRole.slice(0, 8).join(", ") || "none"})`,
    };
  }
  const placed = named.filter((n) => containsAreas(n, target.within));
  if (placed.length === 0) {
    return { ok: false, reason: `${target.role} "${target.name}" is no longer where it was (${what})` };
  }
  if (placed.length === 1) return { ok: true, ref: placed[0]!.ref!, node: placed[0]! };
  const underHeading = placed.filter((n) => n.heading === target.heading);
  if (underHeading.length === 1) return { ok: true, ref: underHeading[0]!.ref!, node: underHeading[0]! };
  return {
    ok: false,
    reason: `${placed.length} elements fit ${what}${target.heading ? ` under heading "${target.heading}"` : ""}; the step cannot tell which one it acted on`,
  };
}
