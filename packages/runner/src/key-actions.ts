/**
 * Keyboard input as WebDriver BiDi key actions: typed text and named key chords.
 *
 * Invariants:
 * - Text is typed one Unicode code point at a time (keyDown + keyUp), so pages see the same
 *   trusted keydown / keypress / input sequence a person produces; "\n" is Enter, "\t" is Tab.
 * - A chord ("Control+Shift+K") presses modifiers in order, the key, then releases in reverse.
 * - Unknown key names are an error that lists the names we know, never a silent no-op.
 */
import type * as Bidi from "webdriver-bidi-protocol";

type KeyAction = Bidi.Input.KeySourceAction;

/** WebDriver's code points for non-printable keys (WebDriver spec, "keyboard actions"). */
const NAMED_KEYS: Record<string, string> = {
  cancel: "\uE001",
  help: "\uE002",
  backspace: "\uE003",
  tab: "\uE004",
  clear: "\uE005",
  return: "\uE006",
  enter: "\uE007",
  shift: "\uE008",
  control: "\uE009",
  ctrl: "\uE009",
  alt: "\uE00A",
  pause: "\uE00B",
  escape: "\uE00C",
  esc: "\uE00C",
  space: " ",
  pageup: "\uE00E",
  pagedown: "\uE00F",
  end: "\uE010",
  home: "\uE011",
  arrowleft: "\uE012",
  left: "\uE012",
  arrowup: "\uE013",
  up: "\uE013",
  arrowright: "\uE014",
  right: "\uE014",
  arrowdown: "\uE015",
  down: "\uE015",
  insert: "\uE016",
  delete: "\uE017",
  del: "\uE017",
  f1: "\uE031",
  f2: "\uE032",
  f3: "\uE033",
  f4: "\uE034",
  f5: "\uE035",
  f6: "\uE036",
  f7: "\uE037",
  f8: "\uE038",
  f9: "\uE039",
  f10: "\uE03A",
  f11: "\uE03B",
  f12: "\uE03C",
  meta: "\uE03D",
  command: "\uE03D",
  cmd: "\uE03D",
};

export class UnknownKeyError extends Error {
  override readonly name = "UnknownKeyError";
}

/** keyDown + keyUp for each code point of `text`. */
export function textKeyActions(text: string): KeyAction[] {
  const actions: KeyAction[] = [];
  for (const char of text) {
    const value = char === "\n" ? NAMED_KEYS.enter! : char === "\t" ? NAMED_KEYS.tab! : char;
    actions.push({ type: "keyDown", value }, { type: "keyUp", value });
  }
  return actions;
}

/** The WebDriver value of one key name ("Enter", "a", "ArrowDown"). */
export function keyValue(name: string): string {
  if ([...name].length === 1) return name;
  const value = NAMED_KEYS[name.toLowerCase().replace(/[\s_-]/g, "")];
  if (value === undefined) {
    const known = [...new Set(Object.keys(NAMED_KEYS))].join(", ");
    throw new UnknownKeyError(`Unknown key "${name}". Use a single character or one of: ${known}.`);
  }
  return value;
}

/**
 * Key actions for chords like "Enter", "Control+a", "Shift+Tab"; several chords separated by
 * spaces or given as an array are pressed one after another ("Tab Tab Enter").
 */
export function chordKeyActions(keys: string | readonly string[]): KeyAction[] {
  const chords = typeof keys === "string" ? keys.trim().split(/\s+/) : keys;
  const actions: KeyAction[] = [];
  for (const chord of chords) {
    if (!chord) continue;
    // "+" alone, or a chord ending in "++", means the plus key itself.
    const parts =
      chord === "+"
        ? ["+"]
        : chord.endsWith("++")
          ? [...chord.slice(0, -2).split("+"), "+"]
          : chord.split("+");
    const values = parts.map(keyValue);
    for (const value of values) actions.push({ type: "keyDown", value });
    for (const value of [...values].reverse()) actions.push({ type: "keyUp", value });
  }
  return actions;
}
