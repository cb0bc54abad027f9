/**
 * The tree since the last one: after an action the model can ask for what changed (added,
 * removed and changed lines, with their refs) instead of the whole tree again.
 *
 * Invariants:
 * - The last full tree (before any budget) is kept per document and per view (filter and scope),
 *   in a WeakMap, so a navigation starts afresh and nothing outlives its page.
 * - Lines with a ref are matched by ref (same ref, other text: changed); other lines are compared
 *   as a multiset of their text, so moved prose is not reported.
 * - Lines are printed without their indentation, prefixed `+ `, `- ` or `~ `, in tree order
 *   (removed lines after the added and changed ones). At most MAX_DIFF_LINES, then a count.
 */

const MAX_DIFF_LINES = 200;
const REF = /^\[(\d+)\]/;

const lastTrees = new WeakMap<Document, Map<string, string[]>>();

/** Remembers `lines` as the last tree of this view and returns the previous one, if any. */
export function swapLastTree(doc: Document, view: string, lines: string[]): string[] | undefined {
  let views = lastTrees.get(doc);
  if (!views) {
    views = new Map();
    lastTrees.set(doc, views);
  }
  const previous = views.get(view);
  views.set(view, lines);
  return previous;
}

export interface TreeDiff {
  text: string;
  added: number;
  removed: number;
  changed: number;
}

export function diffTrees(before: readonly string[], after: readonly string[]): TreeDiff {
  const oldByRef = new Map<string, string>();
  const oldPlain = new Map<string, number>();
  for (const raw of before) {
    const line = raw.trim();
    const ref = REF.exec(line)?.[1];
    if (ref) oldByRef.set(ref, line);
    else oldPlain.set(line, (oldPlain.get(line) ?? 0) + 1);
  }
  const out: string[] = [];
  let added = 0;
  let changed = 0;
  const seenRefs = new Set<string>();
  for (const raw of after) {
    const line = raw.trim();
    const ref = REF.exec(line)?.[1];
    if (ref) {
      seenRefs.add(ref);
      const old = oldByRef.get(ref);
      if (old === undefined) {
        out.push(`+ ${line}`);
        added++;
      } else if (old !== line) {
        out.push(`~ ${line}`);
        changed++;
      }
    } else {
      const left = oldPlain.get(line) ?? 0;
      if (left > 0) oldPlain.set(line, left - 1);
      else {
        out.push(`+ ${line}`);
        added++;
      }
    }
  }
  let removed = 0;
  for (const [ref, line] of oldByRef) {
    if (seenRefs.has(ref)) continue;
    out.push(`- ${line}`);
    removed++;
  }
  for (const [line, count] of oldPlain) {
    for (let i = 0; i < count; i++) {
      out.push(`- ${line}`);
      removed++;
    }
  }
  if (out.length === 0) return { text: "No change since the last tree.", added, removed, changed };
  const shown = out.slice(0, MAX_DIFF_LINES);
  if (out.length > MAX_DIFF_LINES)
    shown.push(`… ${out.length - MAX_DIFF_LINES} more changed lines: ask for the whole tree.`);
  return { text: shown.join("\n"), added, removed, changed };
}
