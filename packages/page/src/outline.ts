/**
 * Folding a tree that is over its character budget into an outline, so that one call shows
 * every part of the page and no control is more than two calls away: parts that do not fit are
 * printed as one line, `[ref] heading "Name" level=2 … folded: 34 controls`, and that ref,
 * passed back as ref_id, prints the part.
 *
 * Parts are the sections of the printed tree: a heading's lines up to the next heading of the
 * same or a higher level (or until the indentation leaves its container), and a structure line's
 * indented block (a landmark, a form, a dialog...). Sections nest.
 *
 * A part with no parts of its own that is over the budget (a table of contents of 300 links, a
 * long list of method entries under one heading), and any long run of lines between parts, is
 * cut into chunks: consecutive lines that start at a control's line (an anchor), each within
 * the budget. A chunk folds like a part: `[ref] link "X" … folded: 40 controls (to link "Y")`.
 *
 * Invariants:
 * - A folded part is never larger than the budget, so opening it fits: a part over the budget
 *   is opened into its own lines and folded children (its parts, or its chunks) instead.
 * - With what is left of the budget, the smallest folded parts are opened first (most controls
 *   shown for the characters spent). Lines outside every part are always printed.
 * - Output is plain tree lines plus one closing line that says how to open a folded part.
 */

import type { TreeNode } from "@webbrain/protocol";

/**
 * A printed line with its element: a structure line that starts a part (its element gets a ref
 * when the part is folded), or, with `anchor`, a control's line, which never starts a part of
 * its own but can start a chunk of a part too big to open at once.
 */
export interface HeadLine {
  text: string;
  el: Element;
  role: string;
  name: string;
  anchor?: boolean;
  /** The line as data, when the caller asked for nodes (TreeOptions.nodes). */
  node?: TreeNode;
}

export type TreeLine = string | HeadLine;

export function lineText(line: TreeLine): string {
  return typeof line === "string" ? line : line.text;
}

/** Whether the line starts a part (a structure line with its element), not a control's line. */
export function isPartHead(line: TreeLine | undefined): line is HeadLine {
  return line !== undefined && typeof line !== "string" && line.anchor !== true;
}

export interface Section {
  /** Index of the head line. */
  start: number;
  /** One past the last line of the section. */
  end: number;
  head: HeadLine;
  children: Section[];
  chars: number;
  controls: number;
  /** A chunk of a part (consecutive lines from an anchor), not a part of the page's own. */
  chunk?: boolean;
}

const HEADING_LEVEL = /^\s*heading\b.*\blevel=(\d)/;
const REF_LINE = /^\s*\[\d+\]/;

function indentOf(text: string): number {
  let i = 0;
  while (text.charCodeAt(i) === 32) i++;
  return i;
}

function headingLevel(text: string): number | undefined {
  const match = HEADING_LEVEL.exec(text);
  return match?.[1] ? Number(match[1]) : undefined;
}

/** End (exclusive) of the section that the head line at `start` opens. */
export function sectionEnd(lines: readonly TreeLine[], start: number): number {
  const text = lineText(lines[start] ?? "");
  const indent = indentOf(text);
  const level = headingLevel(text);
  let end = start + 1;
  for (; end < lines.length; end++) {
    const next = lineText(lines[end] ?? "");
    const nextIndent = indentOf(next);
    if (level === undefined) {
      if (nextIndent <= indent) break;
    } else {
      if (nextIndent < indent) break;
      const nextLevel = nextIndent === indent ? headingLevel(next) : undefined;
      if (nextLevel !== undefined && nextLevel <= level) break;
    }
  }
  return end;
}

/** Characters and control lines of `lines[from, to)`. */
function measure(lines: readonly TreeLine[], from: number, to: number): { chars: number; controls: number } {
  let chars = 0;
  let controls = 0;
  for (let j = from; j < to; j++) {
    const text = lineText(lines[j] ?? "");
    chars += text.length + 1;
    if (REF_LINE.test(text)) controls++;
  }
  return { chars, controls };
}

/** The sections of `lines[from, to)`, nested. */
export function sectionsOf(lines: readonly TreeLine[], from: number, to: number): Section[] {
  const sections: Section[] = [];
  let i = from;
  while (i < to) {
    const line = lines[i];
    if (!isPartHead(line)) {
      i++;
      continue;
    }
    const end = Math.min(sectionEnd(lines, i), to);
    if (end - i <= 1) {
      i++;
      continue;
    }
    sections.push({
      start: i,
      end,
      head: line,
      children: sectionsOf(lines, i + 1, end),
      ...measure(lines, i, end),
    });
    i = end;
  }
  return sections;
}

/**
 * Chunks of `lines[from, to)`, each starting at an anchor and at most `size` characters (a
 * single line over it stays one chunk). Lines before the first anchor belong to no chunk.
 */
function chunksOf(lines: readonly TreeLine[], from: number, to: number, size: number): Section[] {
  const chunks: Section[] = [];
  let start = -1;
  let chars = 0;
  const close = (end: number) => {
    const head = lines[start];
    if (start < 0 || head === undefined || typeof head === "string") return;
    chunks.push({ start, end, head, children: [], ...measure(lines, start, end), chunk: true });
  };
  for (let j = from; j < to; j++) {
    const line = lines[j];
    const length = lineText(line ?? "").length + 1;
    const anchored = line !== undefined && typeof line !== "string";
    if (anchored && (start < 0 || chars + length > size)) {
      close(j);
      start = j;
      chars = 0;
    }
    chars += length;
  }
  close(to);
  return chunks;
}

/**
 * Gives every part over the budget with no parts of its own chunks as its parts, and cuts every
 * long run of lines between parts (over a quarter of the budget) into chunks beside them.
 */
function withChunks(
  lines: readonly TreeLine[],
  from: number,
  to: number,
  sections: Section[],
  budget: number,
): Section[] {
  // Room for the closing line a folded answer ends with.
  const size = Math.max(200, budget - 150);
  const gapLimit = budget / 4;
  const out: Section[] = [];
  const gap = (a: number, b: number) => {
    if (b > a && measure(lines, a, b).chars > gapLimit)
      for (const c of chunksOf(lines, a, b, size)) out.push(c);
  };
  let i = from;
  for (const s of sections) {
    gap(i, s.start);
    if (s.children.length === 0 && s.chars > budget) s.children = chunksOf(lines, s.start + 1, s.end, size);
    else s.children = withChunks(lines, s.start + 1, s.end, s.children, budget);
    out.push(s);
    i = s.end;
  }
  gap(i, to);
  return out;
}

export interface FoldResult {
  text: string;
  lines: number;
  folded: number;
  /** The outline itself was over the budget and was cut (a part too big to fold away). */
  cut: boolean;
}

/**
 * Gives a folded part's head element its ref and prints its fold line. With `last`, the part is
 * a run of sibling sections (first..last) folded as one: the page must remember that run, so
 * that the first head's ref, passed back as ref_id, prints the whole run.
 */
export type FoldLine = (section: Section, last?: Section, controls?: number) => string;

type Plan = Map<Section, "open" | "folded">;

/**
 * Folds `lines` into at most `budget` characters (see header). `foldLine` prints one folded part.
 */
export function foldTree(lines: readonly TreeLine[], budget: number, foldLine: FoldLine): FoldResult {
  // A folded part is opened by a later call, when the page may have grown (a script adding copy
  // buttons after load): parts are sized with a tenth of the budget to spare.
  const partBudget = Math.floor(budget * 0.9);
  const top = withChunks(lines, 0, lines.length, sectionsOf(lines, 0, lines.length), partBudget);
  const plan: Plan = new Map();
  const foldedLines = new Map<Section, string>();
  const foldCost = (s: Section): number => {
    let text = foldedLines.get(s);
    if (text === undefined) {
      text = foldLine(s);
      foldedLines.set(s, text);
    }
    return text.length + 1;
  };
  // Mandatory: open every part too big to fold whole (when it has parts of its own to fold),
  // and the part that is the whole scope (a scoped call asked to see it).
  const whole = top.length === 1 && top[0]?.start === 0 && top[0].end === lines.length ? top[0] : undefined;
  // A scoped call for a chunk that grew past the budget since it was folded: its first chunk
  // starts at the very control that was asked for, and folding it again would answer the same
  // fold line forever.
  const asked = top[0]?.start === 0 && top[0].chunk ? top[0] : undefined;
  const force = (s: Section): void => {
    if (s === whole || s === asked || (s.chars > partBudget && s.children.length > 0)) {
      plan.set(s, "open");
      for (const child of s.children) force(child);
    } else {
      plan.set(s, "folded");
    }
  };
  for (const s of top) force(s);
  let used = cost(lines, top, plan, foldCost);
  // Then open the smallest folded parts while they fit.
  const candidates = [...plan.entries()].filter(([, state]) => state === "folded").map(([s]) => s);
  candidates.sort((a, b) => a.chars - b.chars);
  for (const s of candidates) {
    if (!isVisible(s, top, plan)) continue;
    const delta = s.chars - foldCost(s);
    if (used + delta > budget) continue;
    openWhole(s, plan);
    used += delta;
  }
  let out: string[] = [];
  const foldText = (s: Section) => foldedLines.get(s) ?? foldLine(s);
  emit(lines, 0, lines.length, top, plan, foldText, out);
  let folded = countFolded(top, plan);
  if (out.join("\n").length > budget) {
    // Too many small parts (500 sections of 3 controls): fold runs of folded siblings into one
    // line each, every run no larger than the budget, so each still opens in one call.
    const runs: string[] = [];
    folded = emitRuns(lines, 0, lines.length, top, plan, foldText, foldLine, partBudget, runs);
    out = runs;
  }
  const closing =
    folded > 0
      ? `… truncated to fit ${budget} chars: ${folded} part${folded === 1 ? "" : "s"} folded; pass a folded line's ref as ref_id to print that part.`
      : "";
  let text = out.join("\n");
  let cut = false;
  if (text.length > budget) {
    // A part with no parts of its own is larger than the budget: its controls and headings
    // first, the prose left out (read_page gives it), before anything is cut.
    const kept = out.filter(
      (line) =>
        REF_LINE.test(line) ||
        /^\s*(heading|navigation|main|form|region|dialog|group|list|table)\b/.test(line),
    );
    if (kept.length < out.length) {
      kept.push(
        `… ${out.length - kept.length} lines of text left out to fit ${budget} chars; read_page gives the text.`,
      );
      out = kept;
      text = out.join("\n");
    }
  }
  if (text.length > budget) {
    // Still too big (a part with no parts of its own is larger than the budget): cut whole
    // lines, and end with the one marker line a truncated tree always ends with.
    let kept = 0;
    let size = 0;
    while (kept < out.length && size + (out[kept]?.length ?? 0) + 1 <= budget)
      size += (out[kept++]?.length ?? 0) + 1;
    const dropped = out.slice(kept).join("\n").length;
    text =
      `${out.slice(0, kept).join("\n")}\n… truncated: ${out.length - kept} more lines (${dropped} chars) not shown, budget ${budget} chars. ` +
      `${folded} parts are folded: pass a folded line's ref as ref_id to print one, or use find.`;
    cut = true;
  } else if (closing) {
    text += `\n${closing}`;
  }
  return { text, lines: text.split("\n").length, folded, cut };
}

function openWhole(s: Section, plan: Plan): void {
  plan.set(s, "open");
  for (const child of s.children) openWhole(child, plan);
}

/** A section is shown (open or as a fold line) when every ancestor is open. */
function isVisible(target: Section, sections: Section[], plan: Plan): boolean {
  for (const s of sections) {
    if (s === target) return true;
    if (target.start > s.start && target.end <= s.end)
      return plan.get(s) === "open" && isVisible(target, s.children, plan);
  }
  return false;
}

function cost(
  lines: readonly TreeLine[],
  sections: Section[],
  plan: Plan,
  foldCost: (s: Section) => number,
): number {
  let total = 0;
  for (const line of lines) total += lineText(line).length + 1;
  const subtract = (list: Section[]): void => {
    for (const s of list) {
      if (plan.get(s) === "open") subtract(s.children);
      else total += foldCost(s) - s.chars;
    }
  };
  subtract(sections);
  return total;
}

function countFolded(sections: Section[], plan: Plan): number {
  let n = 0;
  for (const s of sections) n += plan.get(s) === "open" ? countFolded(s.children, plan) : 1;
  return n;
}

function emit(
  lines: readonly TreeLine[],
  from: number,
  to: number,
  sections: Section[],
  plan: Plan,
  foldText: (s: Section) => string,
  out: string[],
): void {
  let i = from;
  for (const s of sections) {
    for (; i < s.start; i++) out.push(lineText(lines[i] ?? ""));
    if (plan.get(s) === "open") {
      out.push(lineText(lines[s.start] ?? ""));
      emit(lines, s.start + 1, s.end, s.children, plan, foldText, out);
    } else {
      out.push(foldText(s));
    }
    i = s.end;
  }
  for (; i < to; i++) out.push(lineText(lines[i] ?? ""));
}

/** emit(), with consecutive folded siblings merged into runs of at most `budget` chars. */
function emitRuns(
  lines: readonly TreeLine[],
  from: number,
  to: number,
  sections: Section[],
  plan: Plan,
  foldText: (s: Section) => string,
  foldLine: FoldLine,
  budget: number,
  out: string[],
): number {
  let folded = 0;
  let i = from;
  let run: Section[] = [];
  let runChars = 0;
  const flush = () => {
    if (run.length === 0) return;
    const first = run[0]!;
    const last = run[run.length - 1]!;
    out.push(
      run.length === 1
        ? foldText(first)
        : foldLine(
            first,
            last,
            run.reduce((n, s) => n + s.controls, 0),
          ),
    );
    folded++;
    run = [];
    runChars = 0;
  };
  for (const s of sections) {
    const between = i < s.start;
    if (between) flush();
    for (; i < s.start; i++) out.push(lineText(lines[i] ?? ""));
    if (plan.get(s) === "open") {
      flush();
      out.push(lineText(lines[s.start] ?? ""));
      folded += emitRuns(lines, s.start + 1, s.end, s.children, plan, foldText, foldLine, budget, out);
    } else {
      if (runChars + s.chars > budget) flush();
      run.push(s);
      runChars += s.chars;
    }
    i = s.end;
  }
  flush();
  for (; i < to; i++) out.push(lineText(lines[i] ?? ""));
  return folded;
}
