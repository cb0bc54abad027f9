/**
 * Widget tasks, read off what the tree says of widgets: colour chips named by their colour
 * (`clickable "lime #00ff00"`, `(colour green #46d388)` in prose), date/time fields with the
 * value form they take (`format=YYYY-MM-DD`), sortable lists whose items have refs, slider thumbs
 * and spinner arrows, values cut with "…" read whole from a tree scoped to their field, and a
 * rich-text toolbar's buttons by their class.
 */
import {
  actions,
  type Call,
  click,
  clickedRefs,
  clickSubmit,
  type Policy,
  sequence,
  submitButton,
  type Tree,
  type TreeItem,
  textboxes,
  type,
} from "./tree.js";

/** The colour names MiniWoB++ asks for, as the hex a person (or a model) knows them by. */
const CSS_COLOURS: Record<string, string> = {
  black: "000000",
  white: "ffffff",
  aqua: "00ffff",
  cyan: "00ffff",
  blue: "0000ff",
  gray: "808080",
  grey: "808080",
  green: "008000",
  lime: "00ff00",
  maroon: "800000",
  navy: "000080",
  olive: "808000",
  purple: "800080",
  red: "ff0000",
  silver: "c0c0c0",
  teal: "008080",
  yellow: "ffff00",
  pink: "ffc0cb",
  magenta: "ff00ff",
  fuchsia: "ff00ff",
  gold: "ffd700",
  orange: "ffa500",
};

const hexOf = (item: TreeItem): string | undefined => /#([0-9a-f]{6})$/.exec(item.name)?.[1];

/** Click the chip of the named colour (by the hex its name ends with). */
export function clickColour(colour: string): Policy {
  const want = CSS_COLOURS[colour.toLowerCase()];
  return (tree, history) => {
    if (actions(history).length > 0) return { done: "clicked" };
    // The instruction may show the colour as a chip too: the last chip of that colour is the answer.
    const chip = tree.items.filter((i) => hexOf(i) === want || i.name.startsWith(`${colour} #`)).at(-1);
    return chip ? click(chip) : { done: `no ${colour} chip` };
  };
}

/** Tick every chip whose colour word ends in the family (`light red`, `red`), then submit. */
export function clickShades(family: string): Policy {
  return (tree, history) => {
    const clicked = clickedRefs(history);
    const next = tree.items.find(
      (i) => new RegExp(`\\b${family} #[0-9a-f]{6}$`).test(i.name) && !clicked.has(i.ref),
    );
    if (next) return click(next);
    const submit = submitButton(tree.items);
    if (submit && !clicked.has(submit.ref)) return click(submit);
    return { done: "submitted" };
  };
}

/** Type a colour's hex (as the field shows it, without #) into the colour field, then submit. */
export function typeColour(hex: (tree: Tree) => string | undefined): Policy {
  return sequence(
    [
      (tree) => {
        const value = hex(tree);
        const field = textboxes(tree.items)[0];
        return value && field ? type(field, value.toUpperCase()) : undefined;
      },
      // The picker opened over the form covers the button: Tab to it and press it with Space.
      () => ({ name: "press_keys", args: { keys: "Tab" } }),
      () => ({ name: "press_keys", args: { keys: "Space" } }),
    ],
    "submitted",
  );
}
export const colourByName = (name: string) => () => CSS_COLOURS[name.toLowerCase()];
export const colourShown = (tree: Tree) => /\(colour [a-z ]+ #([0-9a-f]{6})\)/.exec(tree.allText)?.[1];

/** The field's value form from its line (`format=YYYY-MM-DD`), and `value` written in it. */
function inFormat(field: TreeItem, date: { y: string; m: string; d: string } | { h: number; min: string }) {
  const format = /format=(\S+)/.exec(field.rest)?.[1];
  if ("y" in date) {
    if (format === "YYYY-MM-DD") return `${date.y}-${date.m.padStart(2, "0")}-${date.d.padStart(2, "0")}`;
    return `${date.m}/${date.d}/${date.y}`;
  }
  if (format === "HH:MM") return `${String(date.h).padStart(2, "0")}:${date.min}`;
  return `${date.h % 12 || 12}:${date.min} ${date.h >= 12 ? "PM" : "AM"}`;
}

/** `MM/DD/YYYY` typed in the form the date field's line asks for, then submit. */
export function enterDate(text: string): Policy {
  const [m = "", d = "", y = ""] = text.split("/");
  return sequence(
    [
      (tree) => {
        const field = textboxes(tree.items)[0];
        return field ? type(field, inFormat(field, { y, m, d })) : undefined;
      },
      clickSubmit,
    ],
    "submitted",
  );
}

/** `7:55 PM` typed in the form the time field's line asks for, then submit. */
export function enterTime(text: string): Policy {
  const match = /^(\d+):(\d+) ([AP]M)$/.exec(text);
  const hour = Number(match?.[1] ?? 0) % 12;
  const h = match?.[3] === "PM" ? hour + 12 : hour;
  const min = match?.[2] ?? "00";
  return sequence(
    [
      (tree) => {
        const field = textboxes(tree.items)[0];
        return field ? type(field, inFormat(field, { h, min })) : undefined;
      },
      clickSubmit,
    ],
    "submitted",
  );
}

/** The items of the first sortable list, in order. */
const listItems = (tree: Tree) => tree.items.filter((i) => i.role === "listitem");

/** Drag the named item to the 1-based position `to(items, from)` (onto the item there now). */
export function dragItem(name: string, to: (count: number, from: number) => number): Policy {
  return (tree, history) => {
    if (actions(history).length > 0) return { done: "dragged" };
    const items = listItems(tree);
    const from = items.findIndex((i) => i.name.trim() === name);
    const target = items[to(items.length, from + 1) - 1];
    if (from < 0 || !target) return { done: `no item ${name}` };
    return { name: "drag_drop", args: { from_ref_id: items[from]!.ref, to_ref_id: target.ref } };
  };
}

/** Position words of drag-items (a list) and drag-items-grid (3 x 3). */
export function listTarget(where: string): (count: number, from: number) => number {
  const nth = /^to the (\d+)\w\w position$/.exec(where);
  if (nth) return () => Number(nth[1]);
  if (where === "to the top") return () => 1;
  if (where === "to the bottom") return (n) => n;
  if (where === "up by one position") return (_n, from) => from - 1;
  if (where === "down by one position") return (_n, from) => from + 1;
  return () => 0;
}
const GRID = ["top left", "top center", "top right", "center left", "center", "center right"];
const GRID_ALL = [...GRID, "bottom left", "bottom center", "bottom right"];
export function gridTarget(where: string): (count: number, from: number) => number {
  const cell = /^to the (.+)$/.exec(where)?.[1];
  if (cell && GRID_ALL.includes(cell)) return () => GRID_ALL.indexOf(cell) + 1;
  const step: Record<string, number> = {
    "up by one": -3,
    "down by one": 3,
    "left by one": -1,
    "right by one": 1,
  };
  return (_n, from) => from + (step[where] ?? 0);
}

/** Sort a list's numbers (ascending): drag the number that belongs first onto the first wrong place. */
export const sortNumbers: Policy = (tree, history) => {
  const items = listItems(tree);
  const values = items.map((i) => Number(i.name));
  const sorted = [...values].sort((a, b) => a - b);
  const wrong = values.findIndex((v, k) => v !== sorted[k]);
  if (wrong >= 0 && actions(history).length < 8) {
    const from = items[values.indexOf(sorted[wrong]!, wrong)]!;
    return { name: "drag_drop", args: { from_ref_id: from.ref, to_ref_id: items[wrong]!.ref } };
  }
  const submit = submitButton(tree.items);
  const clicked = clickedRefs(history);
  return submit && !clicked.has(submit.ref) ? click(submit) : { done: "sorted" };
};

/** A field's whole value: its line's, or, when cut with "…", the one a tree scoped to it prints. */
function wholeValue(field: TreeItem): string | undefined {
  const v = /value="((?:[^"\\]|\\.)*)"/.exec(field.rest)?.[1];
  if (v === undefined) return undefined;
  try {
    return JSON.parse(`"${v}"`) as string;
  } catch {
    return v.replace(/\\(.)/g, "$1");
  }
}
const scopedTree = (ref: number): Call => ({ name: "get_accessibility_tree", args: { ref_id: ref } });
const lastCall = (history: Call[]) => history.at(-1);

/**
 * Read the value of the `n`-th filled text field (asking a tree scoped to it for the whole value
 * when its line cuts it with "…"), pass it through `pick`, type that into the empty field, submit.
 */
export function copyValue(n: number, pick: (text: string) => string): Policy {
  return (tree, history, earlier = []) => {
    const done = actions(history);
    if (done.length === 1) return clickSubmit(tree, history) ?? { done: "no submit" };
    if (done.length > 1) return { done: "submitted" };
    const scoped = lastCall(history)?.args.ref_id !== undefined;
    // After a scoped read the page's fields are in the whole tree read before it.
    const page = scoped ? (earlier.filter((t) => textboxes(t.items).length > 0).at(-1) ?? tree) : tree;
    const filled = textboxes(page.items).filter((f) => /value="/.test(f.rest));
    const source = scoped ? textboxes(tree.items)[0] : filled[n - 1];
    const value = source ? wholeValue(source) : undefined;
    if (!source || value === undefined) return { done: "no filled field" };
    // The page's tree cuts long values and folds spaces; the field's own tree gives it exactly.
    if (!scoped) return scopedTree(source.ref);
    const empty = textboxes(page.items).find((f) => !/value="/.test(f.rest));
    return empty ? type(empty, pick(value)) : { done: "no empty field" };
  };
}

export const lastWord = (text: string) =>
  text
    .trim()
    .split(/\s+/)
    .at(-1)
    ?.replace(/[^\p{L}\p{N}]/gu, "") ?? "";

/** The number the page prints right after a slider's block (jQuery UI demos show it there). */
function shownValue(tree: Tree, slider: TreeItem): number | undefined {
  const index = tree.lines.indexOf(slider);
  for (const line of tree.lines.slice(index + 1)) {
    if (line.ref !== undefined) continue;
    if (/^-?\d+$/.test(line.text)) return Number(line.text);
    break;
  }
  return undefined;
}

/** Whether the acts since the last click on `ref` were all key presses (its focus still holds). */
function focusedBy(history: Call[], ref: number): boolean {
  const acts = actions(history);
  const lastClick = acts.findLastIndex((c) => c.name === "click_ax");
  return (
    lastClick >= 0 &&
    Number(acts[lastClick]?.args.ref_id) === ref &&
    acts.slice(lastClick + 1).every((c) => c.name === "press_keys")
  );
}

/** Keys as press_keys takes them: one string, at most 50 a call. */
const keyString = (key: string, count: number) => Array(Math.min(count, 50)).fill(key).join(" ");

/** Move slider thumbs by arrow keys (focused by a click) until the numbers beside them are the targets. */
export function setSliders(targets: number[]): Policy {
  return (tree, history) => {
    const tracks = tree.items.filter((i) => /class="[^"]*\bui-slider\b/.test(i.rest) && i.role !== "slider");
    if (actions(history).length > 60) return { done: "gave up" };
    for (const [k, want] of targets.entries()) {
      const track = tracks[k];
      const thumb = tree.items.find((i) => i.role === "slider" && track && i.ref > track.ref);
      if (!track || !thumb) return { done: "no slider" };
      const shown = shownValue(tree, track) ?? shownValue(tree, thumb);
      if (shown === undefined) return { done: "no value shown" };
      if (shown !== want) {
        if (!focusedBy(history, thumb.ref)) return click(thumb);
        const key = shown < want ? "ArrowRight" : "ArrowLeft";
        return { name: "press_keys", args: { keys: keyString(key, Math.abs(want - shown)) } };
      }
    }
    const submit = submitButton(tree.items);
    return submit && !clickedRefs(history).has(submit.ref) ? click(submit) : { done: "set" };
  };
}

/** Click a spinner's up or down arrow until its value is the target, then submit. */
export function spinTo(want: number): Policy {
  return (tree, history) => {
    const field = tree.items.find((i) => i.role === "spinbutton");
    const value = Number(/value="(-?\d+)"/.exec(field?.rest ?? "")?.[1] ?? Number.NaN);
    if (Number.isNaN(value)) return { done: "no spinner value" };
    if (value !== want && actions(history).length < 30) {
      const arrow = tree.items.find((i) => i.rest.includes(value < want ? "spinner-up" : "spinner-down"));
      if (arrow) return click(arrow);
    }
    const submit = submitButton(tree.items);
    return submit && !clickedRefs(history).has(submit.ref) ? click(submit) : { done: "spun" };
  };
}

/** Select `text` in the rich-text editor with keys, press the style's toolbar button, submit. */
export function styleText(text: string, style: string): Policy {
  const cls = style.startsWith("underline") ? "underline" : style.startsWith("italic") ? "italic" : "bold";
  return (tree, history) => {
    const editor = tree.items.find((i) => i.role === "textbox" && /value="/.test(i.rest));
    const value = editor ? (wholeValue(editor) ?? "") : "";
    const at = value.indexOf(text);
    if (!editor || at < 0) return { done: "text not in the editor" };
    const chunks: string[] = ["Control+Home"];
    for (let left = at; left > 0; left -= 50) chunks.push(keyString("ArrowRight", left));
    for (let left = text.length; left > 0; left -= 50) chunks.push(keyString("Shift+ArrowRight", left));
    const n = actions(history).length;
    if (n === 0) return click(editor);
    if (n <= chunks.length) return { name: "press_keys", args: { keys: chunks[n - 1]! } };
    if (n === chunks.length + 1) {
      const button = tree.items.find((i) => new RegExp(`class="[^"]*\\bql-${cls}\\b`).test(i.rest));
      return button ? click(button) : { done: `no ${cls} button` };
    }
    if (n === chunks.length + 2) return clickSubmit(tree, history) ?? { done: "no submit" };
    return { done: "styled" };
  };
}

/** Scroll a text area to its end with keys (Control+End inside it), then submit. */
export const scrollFieldToEnd: Policy = sequence(
  [
    (tree) => {
      const area = tree.items.find((i) => i.role === "textbox");
      return area ? click(area) : undefined;
    },
    () => ({ name: "press_keys", args: { keys: "Control+End" } }),
    clickSubmit,
  ],
  "scrolled",
);

/**
 * Resize a text area by its handle (`ui-resizable-e` for width, `-s` for height): smaller onto
 * the area itself, larger onto the button beside it (the only thing past its edge with a ref).
 */
export function resizeArea(dimension: string, direction: string): Policy {
  return sequence(
    [
      (tree) => {
        const edge = dimension === "width" ? "e" : "s";
        const handle = tree.items.find((i) => new RegExp(`\\bui-resizable-${edge}\\b`).test(i.rest));
        const target =
          direction === "smaller" ? tree.items.find((i) => i.role === "textbox") : submitButton(tree.items);
        return handle && target
          ? { name: "drag_drop", args: { from_ref_id: handle.ref, to_ref_id: target.ref } }
          : undefined;
      },
      clickSubmit,
    ],
    "resized",
  );
}

const ORDINAL = /^(\d+)(?:st|nd|rd|th)$/;

/** Instruction patterns for the widget tasks; registered before the general table (first match wins). */
export const WIDGET_POLICIES: Array<[RegExp, (m: RegExpExecArray) => Policy | undefined]> = [
  [/^Click on the (\w+) colored box\.$/, (m) => clickColour(m[1]!)],
  [/^Select all the shades of (\w+) and press Submit\.$/, (m) => clickShades(m[1]!)],
  [/^Select (\w+) with the color picker and hit Submit\.$/, (m) => typeColour(colourByName(m[1]!))],
  [/^Select the following color with the color picker and hit Submit\.$/, () => typeColour(colourShown)],
  [/^Enter (\d+\/\d+\/\d+) as the date and hit submit\.$/, (m) => enterDate(m[1]!)],
  [/^Enter (\d+:\d+ [AP]M) as the time and press submit\.$/, (m) => enterTime(m[1]!)],
  [/^Drag (\S+) ((?:to|up|down|left|right) .+)\.$/, (m) => dragItem(m[1]!, dragTarget(m[2]!))],
  [/^Sort the numbers in increasing order/, () => sortNumbers],
  [
    /^Find the last word in the text area, enter it into the text field and hit Submit\.$/,
    () => copyValue(1, lastWord),
  ],
  [
    /^Copy the text from the (\w+) text area below and paste it into the text input, then press Submit\.$/,
    (m) => copyValue(Number(ORDINAL.exec(m[1]!)?.[1] ?? 1), (t) => t),
  ],
  [
    /^Copy the text in the textarea below, paste it into the textbox and press Submit\.$/,
    () => copyValue(1, (t) => t),
  ],
  [/^Select (-?\d+) with the slider and hit Submit\.$/, (m) => setSliders([Number(m[1])])],
  [
    /^Set the sliders to the combination \[(-?\d+),(-?\d+),(-?\d+)\] and submit\.$/,
    (m) => setSliders([Number(m[1]), Number(m[2]), Number(m[3])]),
  ],
  [/^Select (-?\d+) with the spinner and hit Submit\.$/, (m) => spinTo(Number(m[1]))],
  [
    /^Using the text editor, give the text (.+?),? the style (\w+) and press Submit\.$/,
    (m) => styleText(m[1]!, m[2]!),
  ],
  [/^Scroll the textarea to the bottom of the text hit submit\.$/, () => scrollFieldToEnd],
  [
    /^Resize the textarea so that the (width|height) is (larger|smaller) than its initial size then press Submit\.$/,
    (m) => resizeArea(m[1]!, m[2]!),
  ],
];

/** drag-items and drag-items-grid word their targets differently; both are told apart here. */
function dragTarget(where: string): (count: number, from: number) => number {
  return (count, from) => (count === 9 ? gridTarget(where) : listTarget(where))(count, from);
}
