/**
 * A person at the keyboard and mouse, over BiDi: trusted input (`input.performActions`, pages
 * see `isTrusted === true`) aimed at elements by CSS selector, for tests that act as the user
 * (the add-on's pages, a page being recorded). Each click waits until its target is settled and
 * is what a pointer at its centre would hit.
 */
import { type BidiClient, callFunction, performActions } from "@webbrain/bidi";
import { namedKey } from "@webbrain/protocol";
import { until } from "./wait-for.js";

/** WebDriver's key values for the keys tests press, from the one key table (@webbrain/protocol). */
export const KEY = {
  enter: webdriverKey("enter"),
  backspace: webdriverKey("backspace"),
  control: webdriverKey("control"),
  shift: webdriverKey("shift"),
  alt: webdriverKey("alt"),
  tab: webdriverKey("tab"),
  arrowDown: webdriverKey("arrowdown"),
  home: webdriverKey("home"),
} as const;

function webdriverKey(name: string): string {
  const key = namedKey(name);
  if (!key) throw new Error(`the key table has no key named ${name}`);
  return key.webdriver;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The element's box in viewport pixels after scrolling it into view; throws if missing. */
/**
 * The element's box once it is settled: scrolled into view, measured on two animation frames
 * in a row with the same result, and the element (or a descendant) is what a pointer at its
 * centre would hit (or an ancestor of it). A page that is still rendering (a list filled after load, a longer German
 * label wrapping) moves its controls; a click measured before that lands on something else.
 */
export async function boxOf(client: BidiClient, context: string, selector: string): Promise<Box> {
  const box = await callFunction<Box | null | "moving" | "covered">(
    client,
    context,
    `async (selector) => {
      const el = document.querySelector(selector);
      if (!el) return null;
      el.scrollIntoView({ block: "center" });
      // A tab in the background gets no animation frames; a timer stands in for them there.
      const frame = () =>
        new Promise((resolve) => {
          requestAnimationFrame(() => resolve(undefined));
          setTimeout(resolve, 50);
        });
      await frame();
      const a = el.getBoundingClientRect();
      await frame();
      const r = el.getBoundingClientRect();
      if (a.x !== r.x || a.y !== r.y || a.width !== r.width || a.height !== r.height) return "moving";
      const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      // An ancestor counts, and so does anything in the same label (a styled radio is a
      // transparent input laid over its span); an unrelated element on top (an overlay, a
      // menu) does not.
      const label = el.closest("label");
      const same = hit && (el.contains(hit) || hit.contains(el) || (label && label.contains(hit)));
      if (!same) return "covered";
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    }`,
    [selector],
  );
  if (box === null) throw new Error(`no element matches ${selector}`);
  if (box === "moving" || box === "covered") throw new Error(`${selector} is ${box}`);
  return box;
}

export async function click(client: BidiClient, context: string, selector: string): Promise<void> {
  let why = "";
  const box = await until(
    () =>
      boxOf(client, context, selector).catch((error: unknown) => {
        why = (error as Error).message;
        return undefined;
      }),
    { message: `nothing to click at ${selector}` },
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message} (${why})`);
  });
  await performActions(client, context, [
    {
      type: "pointer",
      id: "mouse",
      parameters: { pointerType: "mouse" },
      actions: [
        { type: "pointerMove", x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) },
        { type: "pointerDown", button: 0 },
        { type: "pointerUp", button: 0 },
      ],
    },
  ]);
}

export function keyPresses(keys: string[]) {
  return keys.flatMap((value) => [
    { type: "keyDown" as const, value },
    { type: "keyUp" as const, value },
  ]);
}

export async function typeKeys(client: BidiClient, context: string, text: string): Promise<void> {
  await performActions(client, context, [{ type: "key", id: "keyboard", actions: keyPresses([...text]) }]);
}

export async function pressEnter(client: BidiClient, context: string): Promise<void> {
  await performActions(client, context, [{ type: "key", id: "keyboard", actions: keyPresses([KEY.enter]) }]);
}

/** Click a field, select what is in it, and type over it. */
export async function fill(
  client: BidiClient,
  context: string,
  selector: string,
  text: string,
): Promise<void> {
  await click(client, context, selector);
  await performActions(client, context, [
    {
      type: "key",
      id: "keyboard",
      actions: [
        { type: "keyDown", value: KEY.control },
        { type: "keyDown", value: "a" },
        { type: "keyUp", value: "a" },
        { type: "keyUp", value: KEY.control },
        { type: "keyDown", value: KEY.backspace },
        { type: "keyUp", value: KEY.backspace },
      ],
    },
  ]);
  await typeKeys(client, context, text);
}
