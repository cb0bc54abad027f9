/**
 * Tasks that need the text and pointer tools: select text (highlight-text*), copy and paste with
 * the keyboard (copy-paste*), read a field's whole text (scroll-text), scroll inside a textarea
 * (scroll-text-2, sign-agreement), drag a resize handle (resize-textarea) and drag one box onto
 * another (drag-box). Like the other policies they read only what the agent sent back: the tree,
 * and here also a tool's own answer (select_text says what it selected).
 */
import {
  type Call,
  click,
  keys,
  named,
  type Policy,
  submitButton,
  type Tree,
  type TreeItem,
  textboxes,
  type,
} from "./tree.js";

type Step = (tree: Tree, history: Call[]) => Call | undefined;

/** Tree reads are looking; every other call (scroll included) is one step of the plan. */
function inTurn(steps: Step[], doneText = "submitted"): Policy {
  return (tree, history) => {
    const k = history.filter((c) => c.name !== "get_accessibility_tree").length;
    const step = steps[k];
    if (!step) return { done: doneText };
    return step(tree, history) ?? { done: `step ${k + 1} found nothing to act on` };
  };
}

const submit: Step = (tree) => {
  const b = submitButton(tree.items);
  return b ? click(b) : undefined;
};

/** Lines MiniWoB++ prints around every task (the reward panel). */
const FOOTER = /^(Last reward|Last 10 average|Time left|Episodes done):/;
/** Lines of the tool result around the tree: status, untrusted wrapper, the JSON fields, `tree:`. */
const RESULT_FRAME = /^(\[\w+ (ok|failed)\]|<\/?untrusted|\{|tree:$)/;

/** The n-th prose line of the task (the instruction left out). */
function paragraph(tree: Tree, n: number): string | undefined {
  const prose = tree.lines.filter(
    (l) =>
      l.ref === undefined &&
      !l.role &&
      !FOOTER.test(l.text) &&
      !RESULT_FRAME.test(l.text) &&
      !/^Highlight the text/.test(l.text),
  );
  return prose[n - 1]?.text;
}

const filledFields = (tree: Tree): TreeItem[] => textboxes(tree.items).filter((f) => /value="/.test(f.rest));
const emptyField = (tree: Tree): TreeItem | undefined =>
  textboxes(tree.items).find((f) => !/value="/.test(f.rest) && !/\bdisabled\b/.test(f.rest));

/** Select the n-th paragraph's text, then submit (the page reads window.getSelection()). */
export function highlight(n: number): Policy {
  return inTurn([
    (tree) => {
      const text = paragraph(tree, n);
      return text ? { name: "select_text", args: { text } } : undefined;
    },
    submit,
  ]);
}

/** Select the n-th filled field's text, Control+c, click the empty field, Control+v, submit. */
export function copyPaste(n: number): Policy {
  return inTurn([
    (tree) => {
      const source = filledFields(tree)[n - 1];
      return source ? { name: "select_text", args: { ref_id: source.ref } } : undefined;
    },
    () => keys("Control+c"),
    (tree) => {
      const target = emptyField(tree);
      return target ? click(target) : undefined;
    },
    () => keys("Control+v"),
    submit,
  ]);
}

/** A field of a tool's answer: in its JSON line, or printed raw below it (long text). */
export function answerField(result: string | undefined, field: string): string | undefined {
  if (!result) return undefined;
  for (const line of result.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const value = (JSON.parse(line) as Record<string, unknown>)[field];
      if (typeof value === "string") return value;
    } catch {
      // not the JSON line
    }
  }
  const raw = new RegExp(`(?:^|\\n)${field}:\\n([\\s\\S]*?)\\n</untrusted>`).exec(result);
  return raw?.[1];
}

/** The field's whole text comes back from select_text (the tree shows 60 chars): its last word. */
export const lastWord: Policy = inTurn([
  (tree) => {
    const source = filledFields(tree)[0];
    return source ? { name: "select_text", args: { ref_id: source.ref } } : undefined;
  },
  (tree, history) => {
    const selected = answerField(history.findLast((c) => c.name === "select_text")?.result, "selected");
    const word = selected
      ?.trim()
      .split(/\s+/)
      .at(-1)
      ?.replace(/[^\p{L}\p{N}]/gu, "");
    const target = emptyField(tree);
    return word && target ? type(target, word) : undefined;
  },
  submit,
]);

/** Scroll the textarea to its top or bottom, then submit. */
export function scrollThenSubmit(to: "top" | "bottom"): Policy {
  return inTurn([
    (tree) => {
      const area = textboxes(tree.items)[0];
      return area ? { name: "scroll", args: { ref_id: area.ref, to } } : undefined;
    },
    submit,
  ]);
}

/** Scroll the agreement to its end (that enables the form), type the name, press the button. */
export function signAgreement(name: string, button: string): Policy {
  return inTurn([
    (tree) => {
      const area = textboxes(tree.items)[0];
      return area ? { name: "scroll", args: { ref_id: area.ref, to: "bottom" } } : undefined;
    },
    (tree) => {
      const field = named(tree.items, "Name", ["textbox"]);
      return field ? type(field, name) : undefined;
    },
    (tree) => {
      const b = named(tree.items, button, ["button"]);
      return b ? click(b) : undefined;
    },
  ]);
}

/** Pixels a resize drags by: enough to pass any rounding, within the tasks' boxes. */
const RESIZE_BY_PX = 30;

/** Drag the textarea's resize corner out (larger) or in (smaller), then submit. */
export function resizeTextarea(dimension: string, direction: string): Policy {
  const by = direction === "larger" ? RESIZE_BY_PX : -RESIZE_BY_PX / 2;
  return inTurn([
    (tree) => {
      const area = textboxes(tree.items)[0];
      if (!area) return undefined;
      const offset = dimension === "height" ? { dx: 0, dy: by } : { dx: by, dy: 0 };
      return { name: "drag_drop", args: { from_ref_id: area.ref, handle: "bottom_right", ...offset } };
    },
    submit,
  ]);
}

/** Drag the small box ("s") onto the large one ("L"), then submit. */
export const dragBox: Policy = inTurn([
  (tree) => {
    const small = named(tree.items, "s", ["clickable"]);
    const large = named(tree.items, "L", ["clickable"]);
    return small && large
      ? { name: "drag_drop", args: { from_ref_id: small.ref, to_ref_id: large.ref } }
      : undefined;
  },
  submit,
]);

/** Instruction patterns of these tasks and the policy each one gets (index.ts spreads them in). */
export const TEXT_TOOL_POLICIES: Array<[RegExp, (m: RegExpExecArray) => Policy | undefined]> = [
  [/^Highlight the text in the paragraph below and click submit\.$/, () => highlight(1)],
  [
    /^Highlight the text in the (\d+)(?:st|nd|rd|th) paragraph and click submit\.$/,
    (m) => highlight(Number(m[1])),
  ],
  [/^Copy the text in the textarea below, paste it into the textbox and press Submit\.$/, () => copyPaste(1)],
  [
    /^Copy the text from the (\d+)(?:st|nd|rd|th) text area below and paste it into the text input, then press Submit\.$/,
    (m) => copyPaste(Number(m[1])),
  ],
  [/^Find the last word in the text area, enter it into the text field and hit Submit\.$/, () => lastWord],
  [
    /^Scroll the textarea to the (top|bottom) of the text hit submit\.$/,
    (m) => scrollThenSubmit(m[1] === "top" ? "top" : "bottom"),
  ],
  [
    /^Scroll to the bottom of the textarea, enter the name "(.+)" then press "(.+)"$/,
    (m) => signAgreement(m[1]!, m[2]!),
  ],
  [
    /^Resize the textarea so that the (height|width) is (larger|smaller) than its initial size then press Submit\.$/,
    (m) => resizeTextarea(m[1]!, m[2]!),
  ],
  [/^Drag the smaller box so that it is completely inside the larger box\.$/, () => dragBox],
];
