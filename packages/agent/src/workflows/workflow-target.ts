/**
 * Finding an element again by what it was, not by its old ref number: a saved workflow step
 * names its target by role, accessible name and the part of the page it sits in (the
 * structure lines above it in the tree: form, dialog, region, navigation..., and the nearest
 * heading before it). Replay reads a fresh tree and looks for exactly one element that fits.
 *
 * Both sides read the tree as data (the page layer's nodes, placed by @webbrain/protocol's
 * placeTreeNodes), never the printed text.
 *
 * Invariant: a lookup answers one ref or a reason; it never guesses between two candidates
 * (a wrong click is worse than a stop).
 */
import { type AreaLabel, nodeWithRef, type PlacedTreeNode } from "@webbrain/protocol";

/** What a step acted on, recorded when it ran. */
export interface TargetDescriptor {
  role: string;
  name: string;
  within: AreaLabel[];
  heading?: string;
}

export type TargetMatch = { ok: true; ref: string; node: PlacedTreeNode } | { ok: false; reason: string };

/** What a node is, as a step remembers it. */
export function describeNode(node: PlacedTreeNode): TargetDescriptor {
  return {
    role: node.role,
    name: node.name,
    within: node.within,
    ...(node.heading !== undefined ? { heading: node.heading } : {}),
  };
}

/** What ref `ref` was among `nodes`, or undefined when the tree does not show it. */
export function describeRef(nodes: readonly PlacedTreeNode[], ref: string): TargetDescriptor | undefined {
  const node = nodeWithRef(nodes, ref);
  return node ? describeNode(node) : undefined;
}

export function formatTarget(target: TargetDescriptor): string {
  const where = target.within.map((a) => (a.name ? `${a.role} "${a.name}"` : a.role)).join(" > ");
  return `${target.role} "${target.name}"${where ? ` in ${where}` : ""}`;
}

function containsAreas(node: PlacedTreeNode, areas: readonly AreaLabel[]): boolean {
  let from = 0;
  for (const area of areas) {
    const at = node.within.findIndex((a, i) => i >= from && a.role === area.role && a.name === area.name);
    if (at === -1) return false;
    from = at + 1;
  }
  return true;
}

/** The one element among `nodes` that is `target`, or why there is none. */
export function findTarget(nodes: readonly PlacedTreeNode[], target: TargetDescriptor): TargetMatch {
  const controls = nodes.filter((n) => n.ref !== undefined);
  const named = controls.filter((n) => n.role === target.role && n.name === target.name);
  const what = formatTarget(target);
  if (named.length === 0) {
    const sameRole = controls.filter((n) => n.role === target.role).map((n) => `"${n.name}"`);
    return {
      ok: false,
      reason: `no ${target.role} named "${target.name}" on the page (${target.role} elements now: ${sameRole.slice(0, 8).join(", ") || "none"})`,
    };
  }
  const placed = named.filter((n) => containsAreas(n, target.within));
  if (placed.length === 0) {
    return { ok: false, reason: `${target.role} "${target.name}" is no longer where it was (${what})` };
  }
  if (placed.length === 1) return { ok: true, ref: String(placed[0]!.ref), node: placed[0]! };
  const underHeading = placed.filter((n) => n.heading === target.heading);
  if (underHeading.length === 1)
    return { ok: true, ref: String(underHeading[0]!.ref), node: underHeading[0]! };
  return {
    ok: false,
    reason: `${placed.length} elements fit ${what}${target.heading ? ` under heading "${target.heading}"` : ""}; the step cannot tell which one it acted on`,
  };
}
