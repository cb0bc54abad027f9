/**
 * The one key table: every named key a plan, a model or a test may use, with both what a
 * synthetic KeyboardEvent needs (key, code, keyCode: the add-on's path) and the WebDriver code
 * point trusted input presses (`input.performActions`: the runner's path, and the page tests).
 * Names are matched case-insensitively, ignoring spaces, dashes and underscores ("Page Down",
 * "page_down" and "PageDown" are one key). Single characters are not listed: they are themselves.
 * It lives in the protocol because the page layer, the runner's trusted input and the tests'
 * key presses (testkit) all read it, and none of them may import another.
 */

export interface NamedKey {
  /** KeyboardEvent.key */
  key: string;
  /** KeyboardEvent.code */
  code: string;
  /** KeyboardEvent.keyCode (legacy; many pages still read it) */
  keyCode: number;
  /** The WebDriver key value (WebDriver spec, "keyboard actions"). */
  webdriver: string;
}

const ENTER: NamedKey = { key: "Enter", code: "Enter", keyCode: 13, webdriver: "\uE007" };
const ESCAPE: NamedKey = { key: "Escape", code: "Escape", keyCode: 27, webdriver: "\uE00C" };
const CONTROL: NamedKey = { key: "Control", code: "ControlLeft", keyCode: 17, webdriver: "\uE009" };
const ALT: NamedKey = { key: "Alt", code: "AltLeft", keyCode: 18, webdriver: "\uE00A" };
const META: NamedKey = { key: "Meta", code: "MetaLeft", keyCode: 91, webdriver: "\uE03D" };
const DELETE: NamedKey = { key: "Delete", code: "Delete", keyCode: 46, webdriver: "\uE017" };
const UP: NamedKey = { key: "ArrowUp", code: "ArrowUp", keyCode: 38, webdriver: "\uE013" };
const DOWN: NamedKey = { key: "ArrowDown", code: "ArrowDown", keyCode: 40, webdriver: "\uE015" };
const LEFT: NamedKey = { key: "ArrowLeft", code: "ArrowLeft", keyCode: 37, webdriver: "\uE012" };
const RIGHT: NamedKey = { key: "ArrowRight", code: "ArrowRight", keyCode: 39, webdriver: "\uE014" };

const NAMED_KEYS: Readonly<Record<string, NamedKey>> = {
  enter: ENTER,
  return: ENTER,
  escape: ESCAPE,
  esc: ESCAPE,
  tab: { key: "Tab", code: "Tab", keyCode: 9, webdriver: "\uE004" },
  backspace: { key: "Backspace", code: "Backspace", keyCode: 8, webdriver: "\uE003" },
  delete: DELETE,
  del: DELETE,
  insert: { key: "Insert", code: "Insert", keyCode: 45, webdriver: "\uE016" },
  space: { key: " ", code: "Space", keyCode: 32, webdriver: " " },
  arrowup: UP,
  up: UP,
  arrowdown: DOWN,
  down: DOWN,
  arrowleft: LEFT,
  left: LEFT,
  arrowright: RIGHT,
  right: RIGHT,
  home: { key: "Home", code: "Home", keyCode: 36, webdriver: "\uE011" },
  end: { key: "End", code: "End", keyCode: 35, webdriver: "\uE010" },
  pageup: { key: "PageUp", code: "PageUp", keyCode: 33, webdriver: "\uE00E" },
  pagedown: { key: "PageDown", code: "PageDown", keyCode: 34, webdriver: "\uE00F" },
  pause: { key: "Pause", code: "Pause", keyCode: 19, webdriver: "\uE00B" },
  help: { key: "Help", code: "Help", keyCode: 6, webdriver: "\uE002" },
  shift: { key: "Shift", code: "ShiftLeft", keyCode: 16, webdriver: "\uE008" },
  control: CONTROL,
  ctrl: CONTROL,
  alt: ALT,
  option: ALT,
  meta: META,
  command: META,
  cmd: META,
};

/** WebDriver's F1 is U+E031; F1..F12 follow in order. */
const WEBDRIVER_F1 = 0xe031;
/** KeyboardEvent.keyCode of F1 is 112; F1..F12 follow in order. */
const KEYCODE_F1 = 112;

/** The named key ("Enter", "page down", "F5", "Ctrl"), or undefined for any other name. */
export function namedKey(name: string): NamedKey | undefined {
  const normal = name.toLowerCase().replace(/[\s_-]/g, "");
  const named = NAMED_KEYS[normal];
  if (named) return named;
  const f = /^f([1-9]|1[0-2])$/.exec(normal);
  if (!f) return undefined;
  const n = Number(f[1]);
  return {
    key: `F${n}`,
    code: `F${n}`,
    keyCode: KEYCODE_F1 + n - 1,
    webdriver: String.fromCharCode(WEBDRIVER_F1 + n - 1),
  };
}

/** Every name the table knows, for error messages that list them. */
export function knownKeyNames(): string[] {
  return [...Object.keys(NAMED_KEYS), "f1..f12"];
}
