/** Click-kind tasks: named buttons, links behind tabs or folds, menus, widgets, dialogs. */
import {
  actions,
  type Call,
  CLICKABLE,
  click,
  clickedRefs,
  clickSubmit,
  justWaited,
  named,
  type Policy,
  sequence,
  settled,
  type Tree,
  waitToSettle,
} from "./tree.js";

const CLICK_ROLES = [...CLICKABLE];

/** Click the named control once, then stop. */
export function clickNamed(name: string, roles: readonly string[] = CLICK_ROLES): Policy {
  return (tree, history) => {
    if (actions(history).length > 0) return { done: `clicked ${name}` };
    const target = named(tree.items, name, roles);
    return target ? click(target) : { done: `no control named ${name}` };
  };
}

/** Click the named buttons one after the other. */
export function clickInTurn(names: string[]): Policy {
  return sequence(
    names.map((n) => (tree: Tree) => {
      const b = named(tree.items, n, ["button"]);
      return b ? click(b) : undefined;
    }),
  );
}

/** Click the named item; while it is not in the tree, open a collapsed node or another tab. */
export function findAndClick(name: string): Policy {
  return (tree, history) => {
    const target = named(tree.items, name, CLICK_ROLES);
    const clicked = clickedRefs(history);
    if (target && clicked.has(target.ref)) return { done: `clicked ${name}` };
    // an opener was clicked: its section may still be sliding open, moving what is below it
    if (clicked.size > 0 && !justWaited(history)) return waitToSettle;
    if (target) return click(target);
    const opener =
      tree.items.find((i) => /\bcollapsed\b/.test(i.rest) && !clicked.has(i.ref)) ??
      tree.items.find((i) => i.role === "tab" && !/\bselected\b/.test(i.rest) && !clicked.has(i.ref));
    return opener ? click(opener) : { done: `${name} is not in the tree` };
  };
}

/** Open the section (a collapsed node, or a tab/button that names a section), then submit. */
export const expandThenSubmit: Policy = sequence([
  (tree) => {
    const opener =
      tree.items.find((i) => /\bcollapsed\b/.test(i.rest)) ??
      tree.items.find((i) => (i.role === "tab" || i.role === "button") && /section/i.test(i.name));
    return opener ? click(opener) : undefined;
  },
  settled(clickSubmit),
]);

/**
 * A menu path `A>B>C`: hover each submenu opener in turn (a jQuery UI menu opens submenus on
 * hover, and clicking an opener selects it, which ends the task wrong), then click the leaf.
 */
export function menuPath(path: string[]): Policy {
  return (tree, history) => {
    const moves = history.filter((c) => c.name === "hover" || c.name === "click_ax");
    const k = moves.length;
    const name = path[k];
    if (!name) return { done: "picked" };
    // the last line with the name: a submenu item is printed after (under) its opener
    const hits = tree.items.filter((i) => i.role === "menuitem" && i.name.trim() === name);
    const target = hits.at(-1) ?? named(tree.items, name, CLICK_ROLES);
    if (!target) {
      // the submenu opens a moment after the hover (jQuery UI waits 300 ms): wait once for it
      return k > 0 && !justWaited(history) ? waitToSettle : { done: `no menu item ${name}` };
    }
    return k < path.length - 1 ? { name: "hover", args: { ref_id: target.ref } } : click(target);
  };
}

/** Open a menu button, then click the labeled item. */
export function menuButtonItem(button: string, item: string): Policy {
  return sequence([
    (tree) => {
      const b = named(tree.items, button, ["button"]);
      return b ? click(b) : undefined;
    },
    (tree) => {
      const i = named(tree.items, item, ["menuitem", "link", "clickable", "option", "button"]);
      return i ? click(i) : undefined;
    },
  ]);
}

/** MiniWoB++'s widget kinds and the role each prints as (text and textarea both print as textbox). */
const WIDGET_ROLE: Record<string, string> = {
  button: "button",
  checkbox: "checkbox",
  radio: "radio",
  text: "textbox",
  textarea: "textbox",
};

export function clickWidget(kind: string): Policy {
  return (tree, history) => {
    if (actions(history).length > 0) return { done: "clicked" };
    const role = WIDGET_ROLE[kind];
    const target = tree.items.find((i) => i.role === role);
    return target ? click(target) : { done: `no ${kind} widget` };
  };
}

/** Click the n-th (1-based) item of a role. */
export function clickNth(role: string, n: number): Policy {
  return (tree, history): Call | { done: string } => {
    if (actions(history).length > 0) return { done: "clicked" };
    const target = tree.items.filter((i) => i.role === role)[n - 1];
    return target ? click(target) : { done: `no ${role} #${n}` };
  };
}
