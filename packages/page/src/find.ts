/**
 * `find` in the tree: the lines whose text (and/or role) match, each under the part of the page
 * it is in (its enclosing headings and landmarks), so the model can act on a match at once.
 *
 * Invariants:
 * - Matching is case-insensitive on the line's printed text (name, value, states, prose).
 * - A role matches the word after the ref (`[12] button ...`) or the first word of a structure
 *   line; "clickable" matches elements that only look or are wired clickable.
 * - Each match line is printed as the tree prints it, without its indentation; lines of the same
 *   part are grouped under one `in ...:` line. At most MAX_MATCHES lines, then a count.
 */
import { isPartHead, lineText, type TreeLine } from "./outline.js";

export interface TreeQuery {
  text?: string;
  role?: string;
}

export const MAX_MATCHES = 60;
const LINE_ROLE = /^\s*(?:\[\d+\]\s+)?([a-z]+)/;
const HEADING_LEVEL = /\blevel=(\d)/;

export interface FindResult {
  text: string;
  matches: number;
}

interface OpenPart {
  indent: number;
  level: number | undefined;
  label: string;
}

export function findInTree(lines: readonly TreeLine[], query: TreeQuery): FindResult {
  const needle = query.text?.trim().toLowerCase() ?? "";
  const role = query.role?.trim().toLowerCase() ?? "";
  const out: string[] = [];
  const open: OpenPart[] = [];
  let matches = 0;
  let lastContext = "";
  for (const line of lines) {
    const text = lineText(line);
    const indent = text.length - text.trimStart().length;
    const level = Number(HEADING_LEVEL.exec(text)?.[1]) || undefined;
    // Leave the parts this line is outside of (indentation back out, or a heading of the same rank).
    while (open.length > 0) {
      const top = open[open.length - 1]!;
      const sameRankHeading =
        isPartHead(line) &&
        level !== undefined &&
        top.level !== undefined &&
        indent === top.indent &&
        level <= top.level;
      if (indent < top.indent || (indent === top.indent && top.level === undefined) || sameRankHeading)
        open.pop();
      else break;
    }
    const body = text.trimStart();
    const lineRole = LINE_ROLE.exec(text)?.[1] ?? "";
    const roleOk = !role || lineRole === role || (role === "heading" && body.startsWith("heading"));
    const textOk = !needle || body.toLowerCase().includes(needle);
    if (roleOk && textOk && (needle || role)) {
      matches++;
      if (matches <= MAX_MATCHES) {
        const context = open.map((part) => part.label).join(" > ");
        if (context !== lastContext || out.length === 0) {
          out.push(context ? `in ${context}:` : "at the top of the page:");
          lastContext = context;
        }
        out.push(`  ${body}`);
      }
    }
    if (isPartHead(line)) open.push({ indent, level, label: body.replace(/^\[\d+\]\s+/, "") });
  }
  if (matches === 0) {
    const what = [needle ? `text ${JSON.stringify(query.text)}` : "", role ? `role ${role}` : ""]
      .filter(Boolean)
      .join(" and ");
    return { text: `No line of the tree matches ${what}.`, matches: 0 };
  }
  if (matches > MAX_MATCHES)
    out.push(`… ${matches - MAX_MATCHES} more matches: narrow the text or add a role.`);
  return { text: out.join("\n"), matches };
}
