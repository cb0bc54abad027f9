/** Tasks whose answer is read off the page's text in the tree: tables, words, sums. */
import { readThenSubmit } from "./forms.js";
import type { Policy, Tree } from "./tree.js";

/** `Key | value` rows (how the tree prints a two-cell table row). */
export function tableValue(key: string): Policy {
  return readThenSubmit((tree) => {
    for (const line of tree.lines) {
      const [k, v] = line.text.split(" | ");
      if (k !== undefined && v !== undefined && k.trim() === key) return v.trim();
    }
    return undefined;
  });
}

const ORDINAL = /^(\d+)(?:st|nd|rd|th)$/;
export const ordinal = (word: string): number => Number(ORDINAL.exec(word)?.[1] ?? 0);

/** The n-th word of the paragraph (the longest prose line). */
export function nthWord(n: number): Policy {
  return readThenSubmit((tree) => {
    const prose = tree.lines
      .filter((l) => l.ref === undefined && !l.role)
      .map((l) => l.text)
      .sort((a, b) => b.length - a.length)[0];
    return prose?.split(/\s+/).map((w) => w.replace(/[^\p{L}\p{N}]/gu, ""))[n - 1];
  });
}

/** `a op b =` shown next to the field: the answer. */
export const arithmetic: Policy = readThenSubmit((tree: Tree) => {
  const text = tree.allText;
  const m = /(-?\d+)\s*([-+x*×/])\s*(-?\d+)\s*=/.exec(text);
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = Number(m[3]);
  const op = m[2];
  return String(op === "+" ? a + b : op === "-" ? a - b : op === "/" ? a / b : a * b);
});

/** `x op a = b` (or `a op x = b`): solve for x. */
export const algebra: Policy = readThenSubmit((tree: Tree) => {
  const m = /(x|-?\d+)\s*([-+])\s*(x|-?\d+)\s*=\s*(-?\d+)/.exec(tree.allText);
  if (!m) return undefined;
  const [, left, op, right, total] = m;
  const b = Number(total);
  if (left === "x") return String(op === "+" ? b - Number(right) : b + Number(right));
  return String(op === "+" ? b - Number(left) : Number(left) - b);
});

/** The instruction's text in upper or lower case. */
export function caseOf(text: string, how: string): string {
  return /upper/i.test(how) ? text.toUpperCase() : /lower/i.test(how) ? text.toLowerCase() : text;
}
