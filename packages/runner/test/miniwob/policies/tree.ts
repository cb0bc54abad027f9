/**
 * What a scripted policy sees and does: the tree text the agent sent, parsed into lines, and
 * the calls made so far. Policies read nothing else (no DOM, no task answer) and act by ref.
 */

export interface Call {
  name: string;
  args: Record<string, unknown>;
  /** The tool result the agent sent back for this call, as text (absent for the newest call). */
  result?: string;
}

/** One printed tree line: `[ref] role "name" rest` for controls, bare text for prose. */
export interface TreeLine {
  /** Undefined for structure and prose lines, which take no action. */
  ref: number | undefined;
  role: string;
  name: string;
  rest: string;
  /** Indent level (two spaces per printed ancestor). */
  depth: number;
  /** The whole line without its indent. */
  text: string;
}

/** A line that carries a ref. */
export type TreeItem = TreeLine & { ref: number };

export type Next = Call | { done: string };
/** `earlier`: the trees read before this one, oldest first (what a model remembers of the page). */
export type Policy = (tree: Tree, history: Call[], earlier?: readonly Tree[]) => Next;

const REF_LINE = /^\[(\d+)\]\s+(\S+)(?:\s+"((?:[^"\\]|\\.)*)")?(.*)$/;
const ROLE_LINE = /^([a-z]+)(?:\s+"((?:[^"\\]|\\.)*)")(.*)$/;

/** The parsed tree: every line in order, and the ones with refs. */
export class Tree {
  readonly lines: TreeLine[];
  readonly items: TreeItem[];

  constructor(text: string) {
    const plain =
      treeInJson(text) ?? (text.includes("\\n") ? text.replace(/\\n/g, "\n").replace(/\\"/g, '"') : text);
    this.lines = [];
    for (const raw of pageLines(plain)) {
      const body = raw.trimStart();
      if (!body) continue;
      const depth = Math.floor((raw.length - body.length) / 2);
      const ref = REF_LINE.exec(body);
      const role = ref ? undefined : ROLE_LINE.exec(body);
      if (ref) {
        this.lines.push({
          ref: Number(ref[1]),
          role: ref[2] ?? "",
          name: unquote(ref[3] ?? ""),
          rest: ref[4] ?? "",
          depth,
          text: body,
        });
      } else if (role) {
        this.lines.push({
          ref: undefined,
          role: role[1] ?? "",
          name: unquote(role[2] ?? ""),
          rest: role[3] ?? "",
          depth,
          text: body,
        });
      } else {
        this.lines.push({ ref: undefined, role: "", name: "", rest: "", depth, text: body });
      }
    }
    this.items = this.lines.filter((l): l is TreeItem => l.ref !== undefined);
  }

  /** The lines nested under line `index` (deeper indent, until the indent comes back). */
  block(index: number): TreeLine[] {
    const head = this.lines[index];
    if (!head) return [];
    const out: TreeLine[] = [];
    for (const line of this.lines.slice(index + 1)) {
      if (line.depth <= head.depth) break;
      out.push(line);
    }
    return out;
  }

  /** All visible text of the tree, one line per tree line (names and prose). */
  get allText(): string {
    return this.lines.map((l) => (l.role ? l.name : l.text)).join("\n");
  }
}

/** A short result comes as one JSON line with the tree in it (a scoped tree of one line). */
function treeInJson(text: string): string | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith("{") || !line.includes('"tree":"')) continue;
    try {
      const tree = (JSON.parse(line) as { tree?: unknown }).tree;
      if (typeof tree === "string") return tree;
    } catch {
      // not the result's JSON line
    }
  }
  return undefined;
}

/**
 * The tree's own lines: what follows the result's `tree:` line, without the envelope around it
 * (the tool's status line, the untrusted wrapper, the metadata JSON), which is not page text.
 */
function pageLines(text: string): string[] {
  const all = text.split("\n");
  const start = all.findIndex((l) => l.trim() === "tree:");
  return all.slice(start + 1).filter((l) => !/^<\/?untrusted\b/.test(l.trim()));
}

function unquote(s: string): string {
  return s.replace(/\\(.)/g, "$1");
}

export const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export const CLICKABLE = [
  "button",
  "link",
  "clickable",
  "menuitem",
  "option",
  "tab",
  "treeitem",
  "gridcell",
  "checkbox",
  "radio",
] as const;

/** The item named `name` (exact first, then containing it), among the given roles. */
export function named(items: TreeItem[], name: string, roles?: readonly string[]): TreeItem | undefined {
  const ok = (item: TreeItem) => !roles || roles.includes(item.role);
  return (
    items.find((i) => ok(i) && same(i.name, name)) ??
    items.find((i) => ok(i) && i.name.toLowerCase().includes(name.toLowerCase()))
  );
}

export const click = (item: { ref: number }): Call => ({ name: "click_ax", args: { ref_id: item.ref } });
export const type = (item: { ref: number }, value: string): Call => ({
  name: "type_ax",
  args: { ref_id: item.ref, value },
});
export const keys = (k: string): Call => ({ name: "press_keys", args: { keys: k } });

/** Calls that only look or wait: they change nothing on the page. */
const OBSERVING = new Set(["get_accessibility_tree", "scroll", "wait_for_stable"]);
/** The calls that acted (tree reads, scrolls and waits left out). */
export const actions = (history: Call[]) => history.filter((c) => !OBSERVING.has(c.name));
export const clickedRefs = (history: Call[]) =>
  new Set(
    actions(history)
      .filter((c) => c.name === "click_ax")
      .map((c) => Number(c.args.ref_id)),
  );
export const textboxes = (items: TreeItem[]) =>
  items.filter((i) => i.role === "textbox" || i.role === "searchbox" || i.role === "combobox");
export const submitButton = (items: TreeItem[]) =>
  named(items, "Submit", ["button"]) ??
  items.find((i) => i.role === "button" && /submit|search|login|ok/i.test(i.name)) ??
  items.find((i) => i.role === "clickable" && same(i.name, "Submit"));

/** A plan of steps run in order: each step is a function of the tree that returns the next call. */
export type Step = (tree: Tree, history: Call[]) => Call | { done: string } | undefined;

/** Runs `steps` one per acting call: step k answers once k actions were made; past the end, done. */
export function sequence(steps: Step[], doneText = "done"): Policy {
  return (tree, history) => {
    const k = actions(history).length;
    const step = steps[k];
    if (!step) return { done: doneText };
    return step(tree, history) ?? { done: `step ${k + 1} found nothing to act on` };
  };
}

export const clickSubmit: Step = (tree) => {
  const b = submitButton(tree.items);
  return b ? click(b) : undefined;
};

/** A wait for the page to settle: no DOM change for 300 ms (MiniWoB++'s clock ticks each second). */
export const waitToSettle: Call = { name: "wait_for_stable", args: { quiet_ms: 300 } };
/** Whether the call before this tree read was a wait for the page to settle. */
export const justWaited = (history: Call[]) => history.at(-2)?.name === "wait_for_stable";

/**
 * `step`, once the page has settled: a script acts within milliseconds of the last change, while
 * an animation (jQuery UI's accordion: 400 ms) still moves the target, so the point it clicks is
 * not where the target ends up. A model's own latency hides this; a script waits for it.
 */
export const settled =
  (step: Step): Step =>
  (tree, history) =>
    justWaited(history) ? step(tree, history) : waitToSettle;
