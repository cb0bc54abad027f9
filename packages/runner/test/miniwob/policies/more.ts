/** More reading tasks: a form filled from a table, odd/even marks, a shown text, a generated number. */
import { readThenSubmit } from "./forms.js";
import { actions, click, clickSubmit, named, type Policy, type Tree, textboxes, type } from "./tree.js";

/** `Key | value` rows of a two-cell table, by key. */
function tableRows(tree: Tree): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of tree.lines) {
    const [k, v] = line.text.split(" | ");
    if (k !== undefined && v !== undefined) rows.set(k.trim(), v.trim());
  }
  return rows;
}

/** Each field named `Label:` gets the table's value for that label; then submit. */
export const tableToForm: Policy = (tree, history) => {
  const rows = tableRows(tree);
  const typed = new Set(actions(history).map((c) => Number(c.args.ref_id)));
  for (const field of textboxes(tree.items)) {
    const value = rows.get(field.name.replace(/:$/, "").trim());
    if (value !== undefined && !typed.has(field.ref)) return type(field, value);
  }
  return actions(history).some((c) => c.name === "click_ax")
    ? { done: "submitted" }
    : (clickSubmit(tree, history) ?? { done: "no submit" });
};

/** A number printed between its Odd and Even buttons: click the one that fits each, then submit. */
export const markOddEven: Policy = (tree, history) => {
  const clicked = new Set(actions(history).map((c) => Number(c.args.ref_id)));
  const lines = tree.lines;
  for (let i = 1; i < lines.length - 1; i++) {
    const text = lines[i]!.text;
    if (!/^-?\d+$/.test(text)) continue;
    const odd = lines[i - 1]!;
    const even = lines[i + 1]!;
    if (odd.name !== "Odd" || even.name !== "Even" || odd.ref === undefined || even.ref === undefined)
      continue;
    const pick = Math.abs(Number(text)) % 2 === 1 ? odd : even;
    if (!clicked.has(pick.ref!)) return click({ ref: pick.ref! });
  }
  const submit = named(tree.items, "Submit", ["button"]);
  return submit && !clicked.has(submit.ref) ? click(submit) : { done: "submitted" };
};

/** The text shown between the instruction and the field, typed as it reads. */
export const typeShownText: Policy = readThenSubmit((tree) => {
  const at = tree.lines.findIndex((l) => l.ref !== undefined);
  const shown = tree.lines
    .slice(1, at)
    .filter((l) => !l.role)
    .at(-1);
  return shown?.text;
});

/** Press Generate until the number shown fits, then submit. */
export function generateNumber(fits: (n: number) => boolean): Policy {
  return (tree, history) => {
    const generate = named(tree.items, "Generate", ["button"]);
    const at = tree.lines.findIndex((l) => l.ref === generate?.ref);
    const shown = Number(tree.lines[at - 1]?.text);
    const submit = named(tree.items, "Submit", ["button"]);
    if (actions(history).at(-1)?.args.ref_id === submit?.ref && submit) return { done: "submitted" };
    if (Number.isFinite(shown) && tree.lines[at - 1]?.text !== "-" && fits(shown) && submit)
      return click(submit);
    return generate ? click(generate) : { done: "no Generate button" };
  };
}

export const NUMBER_RULES: Array<[RegExp, (m: RegExpExecArray) => (n: number) => boolean]> = [
  [/^an even number$/, () => (n) => n % 2 === 0],
  [/^an odd number$/, () => (n) => Math.abs(n % 2) === 1],
  [/^a number less than (-?\d+)$/, (m) => (n) => n < Number(m[1])],
  [/^a number greater than (-?\d+)$/, (m) => (n) => n > Number(m[1])],
];
