/** Form-kind tasks: type into fields (by order, name or position), tick boxes, pick options. */
import {
  actions,
  click,
  clickSubmit,
  named,
  type Policy,
  type Step,
  sequence,
  settled,
  submitButton,
  type Tree,
  textboxes,
  type,
} from "./tree.js";

/** Type values into fields (in order, or by name), then press the submit button. */
export function fillAndSubmit(values: Array<{ field?: string; value: string }>): Policy {
  const steps: Step[] = values.map((want, k) => (tree: Tree) => {
    const fields = textboxes(tree.items);
    const field = (want.field ? named(fields, want.field) : undefined) ?? fields[k] ?? fields[0];
    return field ? type(field, want.value) : undefined;
  });
  return sequence([...steps, clickSubmit], "submitted");
}

/** Tick the named boxes/radios (or pick an option of a list), then submit. */
export function selectAndSubmit(names: string[]): Policy {
  const steps: Step[] = names.map((name) => (tree: Tree) => {
    const box = named(tree.items, name, ["checkbox", "radio", "option", "clickable"]);
    if (box) return click(box);
    const list = tree.items.find((i) => i.role === "combobox" || i.role === "listbox");
    return list ? { name: "set_field", args: { ref_id: list.ref, value: name } } : undefined;
  });
  return sequence([...steps, clickSubmit], "submitted");
}

/** Several options of one multi-select list at once (set_field takes them comma-separated). */
export function selectManyAndSubmit(names: string[]): Policy {
  return sequence(
    [
      (tree) => {
        const list = tree.items.find((i) => i.role === "listbox" || i.role === "combobox");
        return list ? { name: "set_field", args: { ref_id: list.ref, value: names.join(", ") } } : undefined;
      },
      clickSubmit,
    ],
    "submitted",
  );
}

export const focusFirstField: Policy = (tree, history) => {
  const field = textboxes(tree.items)[0];
  return actions(history).length > 0 || !field ? { done: "focused" } : click(field);
};

/** Type the value into the n-th textbox (1-based) after ticking the m-th radio. */
export function radioThenField(radio: number, value: string, field: number): Policy {
  return sequence(
    [
      (tree) => {
        const r = tree.items.filter((i) => i.role === "radio")[radio - 1];
        return r ? click(r) : undefined;
      },
      (tree) => {
        const f = textboxes(tree.items)[field - 1];
        return f ? type(f, value) : undefined;
      },
      clickSubmit,
    ],
    "submitted",
  );
}

/** A custom dropdown: open it (its collapsed opener), click the option, then the named button. */
export function dropdownThenButton(option: string, button: string): Policy {
  return sequence(
    [
      (tree) => {
        const list = tree.items.find((i) => i.role === "combobox");
        if (list) return { name: "set_field", args: { ref_id: list.ref, value: option } };
        const opener = tree.items.find((i) => /\bcollapsed\b/.test(i.rest));
        return opener ? click(opener) : undefined;
      },
      (tree, history) => {
        const last = actions(history).at(-1);
        if (last?.name === "set_field") {
          const b = named(tree.items, button, ["button"]);
          return b ? click(b) : undefined;
        }
        const o = tree.items.find((i) => i.role !== "button" && i.name.trim() === option);
        return o ? click(o) : undefined;
      },
      (tree, history) => {
        if (actions(history)[0]?.name === "set_field") return { done: "clicked" };
        const b = named(tree.items, button, ["button"]);
        return b ? click(b) : undefined;
      },
    ],
    "clicked",
  );
}

/** Type `value` into the first text field and submit. */
export const typeAndSubmit = (value: string): Policy => fillAndSubmit([{ value }]);

/** A value read off the tree by `read`, typed into the first field, then submit. */
export function readThenSubmit(read: (tree: Tree) => string | undefined): Policy {
  return sequence(
    [
      (tree) => {
        const value = read(tree);
        const field = textboxes(tree.items).find((f) => !/value=/.test(f.rest)) ?? textboxes(tree.items)[0];
        return value !== undefined && field ? type(field, value) : undefined;
      },
      (tree) => {
        const b = submitButton(tree.items);
        return b ? click(b) : undefined;
      },
    ],
    "submitted",
  );
}

/** Type into a spin button (or the first field) and submit. */
export function spinAndSubmit(value: string): Policy {
  return sequence(
    [
      (tree) => {
        const f = tree.items.find((i) => i.role === "spinbutton") ?? textboxes(tree.items)[0];
        return f ? type(f, value) : undefined;
      },
      clickSubmit,
    ],
    "submitted",
  );
}

/** Type the start of an item into an autocomplete field, pick the matching suggestion, submit. */
export function autocomplete(start: string, end: string | undefined): Policy {
  return sequence(
    [
      (tree) => {
        const f = textboxes(tree.items)[0];
        return f ? { name: "type_ax", args: { ref_id: f.ref, value: start } } : undefined;
      },
      // the suggestions open a moment after the typing (jQuery UI's autocomplete waits 300 ms)
      settled((tree) => {
        // the last match: a suggestion list without roles prints its items (clickable) under
        // a line for the whole list, whose name runs them together
        const hit = tree.items.findLast(
          (i) =>
            (i.role === "option" || i.role === "menuitem" || i.role === "clickable") &&
            i.name.toLowerCase().startsWith(start.toLowerCase()) &&
            (!end || i.name.toLowerCase().endsWith(end.toLowerCase())),
        );
        if (hit) return click(hit);
        return clickSubmit(tree, []);
      }),
      (tree, history) =>
        actions(history).at(-1)?.name === "click_ax" && !submitted(tree, history)
          ? clickSubmit(tree, history)
          : { done: "submitted" },
    ],
    "submitted",
  );
}

function submitted(tree: Tree, history: ReturnType<typeof actions>): boolean {
  const b = submitButton(tree.items);
  return !!b && history.some((c) => c.name === "click_ax" && Number(c.args.ref_id) === b.ref);
}
