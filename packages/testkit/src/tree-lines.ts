/**
 * Reading a printed tree in tests: the first line that matches, and the ref printed on a line.
 * For assertions on the text the model sees; product code never parses tree text (issue 22).
 */

/** The first line of `tree` that matches `pattern`, or "" (so a missing line fails the next check). */
export function lineOf(tree: string, pattern: RegExp): string {
  return tree.split("\n").find((line) => pattern.test(line)) ?? "";
}

/** The ref printed on a tree line (`[12] button "Go"` -> 12); NaN when the line has none. */
export function refIn(line: string): number {
  return Number(/\[(\d+)\]/.exec(line)?.[1] ?? Number.NaN);
}
