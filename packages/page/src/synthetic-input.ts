/**
 * Synthetic events, the add-on's way of acting (spec 000): pages see `isTrusted === false`.
 * Events are constructed in the realm this script runs in and dispatched on page elements.
 */
import { namedKey } from "@webbrain/protocol";
import { deepElementFromPoint, styleOf, windowOf } from "./dom-realm.js";
import type { ViewportPoint } from "./protocol.js";

export interface KeySpec {
  key: string;
  code: string;
  keyCode: number;
}

export interface KeyCombo {
  key: KeySpec;
  ctrl: boolean;
  shift: boolean;
  alt: boolean;
  meta: boolean;
  /** Normalised text form, e.g. "Control+a", as sent to callers in resolve plans. */
  text: string;
}

const MODIFIERS: Record<string, "ctrl" | "shift" | "alt" | "meta"> = {
  control: "ctrl",
  ctrl: "ctrl",
  shift: "shift",
  alt: "alt",
  option: "alt",
  meta: "meta",
  cmd: "meta",
  command: "meta",
};

const MODIFIER_NAMES = { ctrl: "Control", shift: "Shift", alt: "Alt", meta: "Meta" } as const;

function keySpecFor(name: string): KeySpec | undefined {
  // Named keys come from the one key table (@webbrain/protocol key-table.ts), shared with trusted input.
  const named = namedKey(name);
  if (named) return { key: named.key, code: named.code, keyCode: named.keyCode };
  if ([...name].length !== 1) return undefined;
  const upper = name.toUpperCase();
  if (/[a-z]/i.test(name)) return { key: name, code: `Key${upper}`, keyCode: upper.charCodeAt(0) };
  if (/[0-9]/.test(name)) return { key: name, code: `Digit${name}`, keyCode: name.charCodeAt(0) };
  return { key: name, code: "", keyCode: 0 };
}

/** Parses "Control+a", "Shift+Tab", "Enter". Returns undefined for unknown key names. */
export function parseKeyCombo(text: string): KeyCombo | undefined {
  const parts = text === "+" ? ["+"] : text.split("+").filter((part) => part !== "");
  if (text.endsWith("++")) parts.push("+");
  const combo = { ctrl: false, shift: false, alt: false, meta: false };
  let key: KeySpec | undefined;
  for (const part of parts) {
    const modifier = MODIFIERS[part.toLowerCase()];
    if (modifier && key === undefined && parts.length > 1) {
      combo[modifier] = true;
      continue;
    }
    if (key) return undefined;
    key = keySpecFor(part);
    if (!key) return undefined;
  }
  if (!key) return undefined;
  const names = (Object.keys(MODIFIER_NAMES) as (keyof typeof MODIFIER_NAMES)[])
    .filter((m) => combo[m])
    .map((m) => MODIFIER_NAMES[m]);
  const keyName = key.key === " " ? "Space" : key.key;
  return { key, ...combo, text: [...names, keyName].join("+") };
}

/** Dispatches one keyboard event; returns false when a listener called preventDefault(). */
export function dispatchKey(
  target: EventTarget,
  type: "keydown" | "keypress" | "keyup",
  combo: KeyCombo,
): boolean {
  const init: KeyboardEventInit & { keyCode: number; which: number } = {
    key: combo.key.key,
    code: combo.key.code,
    keyCode: combo.key.keyCode,
    which: combo.key.keyCode,
    ctrlKey: combo.ctrl,
    shiftKey: combo.shift,
    altKey: combo.alt,
    metaKey: combo.meta,
    bubbles: true,
    cancelable: true,
    composed: true,
  };
  return target.dispatchEvent(new KeyboardEvent(type, init));
}

/** keydown (+ keypress for printable/Enter) + keyup. Returns whether keydown was not cancelled. */
export function pressKey(target: EventTarget, combo: KeyCombo): boolean {
  const allowed = dispatchKey(target, "keydown", combo);
  if (allowed && (combo.key.key.length === 1 || combo.key.key === "Enter") && !combo.ctrl && !combo.meta) {
    dispatchKey(target, "keypress", combo);
  }
  dispatchKey(target, "keyup", combo);
  return allowed;
}

function mouseInit(el: Element, x: number, y: number, buttons: number): MouseEventInit {
  return {
    bubbles: true,
    cancelable: true,
    composed: true,
    clientX: x,
    clientY: y,
    button: 0,
    buttons,
    view: windowOf(el),
  };
}

function pointer(type: string, el: Element, x: number, y: number, buttons: number): void {
  const init = { ...mouseInit(el, x, y, buttons), pointerId: 1, pointerType: "mouse", isPrimary: true };
  el.dispatchEvent(new PointerEvent(type, init));
}

function mouse(type: string, el: Element, x: number, y: number, buttons: number): boolean {
  return el.dispatchEvent(new MouseEvent(type, mouseInit(el, x, y, buttons)));
}

/** Hover: the enter/over/move events a pointer arriving on the element produces. */
export function hoverAt(el: Element, x: number, y: number): void {
  pointer("pointerover", el, x, y, 0);
  el.dispatchEvent(
    new PointerEvent("pointerenter", { ...mouseInit(el, x, y, 0), bubbles: false, pointerType: "mouse" }),
  );
  mouse("mouseover", el, x, y, 0);
  el.dispatchEvent(new MouseEvent("mouseenter", { ...mouseInit(el, x, y, 0), bubbles: false }));
  pointer("pointermove", el, x, y, 0);
  mouse("mousemove", el, x, y, 0);
}

/**
 * A full synthetic press: pointer/mouse down and up, focus, then `el.click()` (which runs the
 * element's activation behaviour: links navigate, checkboxes toggle, forms submit).
 */
export function clickElement(el: Element, x: number, y: number): void {
  hoverAt(el, x, y);
  pointer("pointerdown", el, x, y, 1);
  const focusable = mouse("mousedown", el, x, y, 1);
  if (focusable && el.isConnected) focusForClick(el);
  pointer("pointerup", el, x, y, 0);
  mouse("mouseup", el, x, y, 0);
  if (!el.isConnected) return;
  // SVG shapes have no click() (no activation behaviour either): a click event carrying the point.
  if (typeof (el as HTMLElement).click === "function") (el as HTMLElement).click();
  else mouse("click", el, x, y, 0);
}

/** A click at a point on whatever is there (x,y clicks): a click event carrying coordinates. */
export function clickAtPoint(el: Element, x: number, y: number): void {
  hoverAt(el, x, y);
  pointer("pointerdown", el, x, y, 1);
  mouse("mousedown", el, x, y, 1);
  focusForClick(el);
  pointer("pointerup", el, x, y, 0);
  mouse("mouseup", el, x, y, 0);
  if (typeof (el as HTMLElement).click === "function" && el.localName !== "body") {
    (el as HTMLElement).click();
  } else {
    mouse("click", el, x, y, 0);
  }
}

function focusForClick(el: Element): void {
  const focusTarget = (el as HTMLElement).closest?.(
    "a[href], button, input, select, textarea, summary, [tabindex], [contenteditable=''], [contenteditable=true]",
  ) as HTMLElement | null;
  focusTarget?.focus?.({ preventScroll: true });
}

/** HTML5 drag and drop with a constructed DataTransfer, plus the pointer events around it. */
export function dragAndDrop(
  source: Element,
  from: { x: number; y: number },
  target: Element,
  to: { x: number; y: number },
): void {
  const data = new DataTransfer();
  pointer("pointerdown", source, from.x, from.y, 1);
  mouse("mousedown", source, from.x, from.y, 1);
  const dragInit = (el: Element, x: number, y: number): DragEventInit => ({
    ...mouseInit(el, x, y, 1),
    dataTransfer: data,
  });
  // Browsers start an HTML5 drag only from draggable things; others get just the pointer events.
  const draggable = source.closest("[draggable=true], a[href], img") !== null;
  const started =
    draggable && source.dispatchEvent(new DragEvent("dragstart", dragInit(source, from.x, from.y)));
  pointer("pointermove", target, to.x, to.y, 1);
  mouse("mousemove", target, to.x, to.y, 1);
  if (started) {
    target.dispatchEvent(new DragEvent("dragenter", dragInit(target, to.x, to.y)));
    target.dispatchEvent(new DragEvent("dragover", dragInit(target, to.x, to.y)));
    target.dispatchEvent(new DragEvent("drop", dragInit(target, to.x, to.y)));
    source.dispatchEvent(new DragEvent("dragend", dragInit(source, to.x, to.y)));
  }
  pointer("pointerup", target, to.x, to.y, 0);
  mouse("mouseup", target, to.x, to.y, 0);
}

/** Intermediate moves of a synthetic drag, as the trusted plan makes (input-plan DRAG_MOVE_STEPS). */
const SYNTHETIC_DRAG_MOVES = 5;

/**
 * A pointer drag from one point to another, each event sent to what is under the pointer (a
 * resize handle, the document while the pointer is past the element), as a person's drag
 * would. Where nothing of the page's own is under the grab point but the browser's resizer of
 * a resizable element (`resize` not none), synthetic events cannot move that native handle: the
 * element gets the size the resizer would give it instead.
 */
export function dragToPoint(source: Element, from: ViewportPoint, to: ViewportPoint): void {
  const doc = source.ownerDocument;
  const under = (point: ViewportPoint) => deepElementFromPoint(doc, point.x, point.y) ?? source;
  const grabbed = under(from);
  if (grabbed === source && styleOf(source).resize !== "none" && nearBottomRight(source, from)) {
    resizeBy(source, to.x - from.x, to.y - from.y);
    return;
  }
  pointer("pointerdown", grabbed, from.x, from.y, 1);
  mouse("mousedown", grabbed, from.x, from.y, 1);
  for (let i = 1; i <= SYNTHETIC_DRAG_MOVES; i++) {
    const t = i / SYNTHETIC_DRAG_MOVES;
    const at = { x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t };
    const over = under(at);
    pointer("pointermove", over, at.x, at.y, 1);
    mouse("mousemove", over, at.x, at.y, 1);
  }
  const released = under(to);
  pointer("pointerup", released, to.x, to.y, 0);
  mouse("mouseup", released, to.x, to.y, 0);
}

/** Size of the corner area where browsers draw the resizer, px. */
const NATIVE_RESIZER_PX = 16;

function nearBottomRight(el: Element, point: ViewportPoint): boolean {
  const rect = el.getBoundingClientRect();
  return rect.right - point.x <= NATIVE_RESIZER_PX && rect.bottom - point.y <= NATIVE_RESIZER_PX;
}

function resizeBy(el: Element, dx: number, dy: number): void {
  const style = styleOf(el);
  const box = el as HTMLElement;
  const resize = style.resize;
  if (resize !== "vertical" && dx !== 0)
    box.style.width = `${Math.max(0, Number.parseFloat(style.width) + dx)}px`;
  if (resize !== "horizontal" && dy !== 0)
    box.style.height = `${Math.max(0, Number.parseFloat(style.height) + dy)}px`;
}
