/**
 * Pressing a resolve plan with trusted input, written once: the runner presses the page layer's
 * plans with it, and so do the page tests, so what a test proves is what the runner does.
 *
 * A plan step becomes WebDriver BiDi `input.performActions` sources here; who sends them (the
 * runner's BiDi client with Stop, a test's client) is the caller's `PlanPressIo`. This module
 * runs in Node; like the rest of the page package it imports only @webbrain/protocol (the key
 * table; the BiDi action shapes below are WebDriver BiDi's, written structurally).
 *
 * Invariants:
 * - Steps run in order, each as one `input.performActions` call; pointer coordinates are CSS
 *   pixels in the viewport of the context the steps are performed in, rounded to whole pixels.
 * - Every pressed button and key is released within the same call.
 * - Text is typed one code point at a time ("\n" is Enter, "\t" is Tab); a chord
 *   ("Control+Shift+K") presses modifiers in order, the key, then releases in reverse; an unknown
 *   key name is an UnknownKeyError that lists the names there are, never a silent no-op.
 */
import { knownKeyNames, namedKey } from "@webbrain/protocol";
import type { PlanStep, ViewportPoint } from "./protocol.js";

export type PointerAction =
  | { type: "pointerMove"; x: number; y: number; origin: "viewport"; duration?: number }
  | { type: "pointerDown"; button: number }
  | { type: "pointerUp"; button: number };
export type KeyAction = { type: "keyDown"; value: string } | { type: "keyUp"; value: string };
export type SourceActions =
  | { type: "pointer"; id: string; parameters: { pointerType: "mouse" }; actions: PointerAction[] }
  | { type: "key"; id: string; actions: KeyAction[] };

/** How a plan reaches the browser: send one step's actions; wait out a pause. */
export interface PlanPressIo {
  perform(actions: SourceActions[]): Promise<unknown>;
  pause(ms: number): Promise<unknown>;
}

/** Intermediate pointer moves of a drag, so drag libraries see motion, not a teleport. */
export const DRAG_MOVE_STEPS = 5;
/** Time the drag's moves take, ms: long enough for pages that throttle pointermove. */
const DRAG_DURATION_MS = 150;
/** Upper bound of a pause step, ms, so a wrong plan cannot stall a run. */
export const MAX_PAUSE_MS = 5_000;
/** Clicks in one click step at most (a triple click selects a paragraph). */
const MAX_CLICK_COUNT = 3;

const MOUSE_ID = "webbrain-mouse";
const KEYBOARD_ID = "webbrain-keyboard";

export class UnknownKeyError extends Error {
  override readonly name = "UnknownKeyError";
}

function moveTo(point: ViewportPoint, duration = 0): PointerAction {
  return {
    type: "pointerMove",
    x: Math.round(point.x),
    y: Math.round(point.y),
    origin: "viewport",
    ...(duration ? { duration } : {}),
  };
}

function pointer(actions: PointerAction[]): SourceActions {
  return { type: "pointer", id: MOUSE_ID, parameters: { pointerType: "mouse" }, actions };
}

function keyboard(actions: KeyAction[]): SourceActions {
  return { type: "key", id: KEYBOARD_ID, actions };
}

/** The WebDriver value of one key name ("Enter", "a", "ArrowDown"). */
export function keyValue(name: string): string {
  if ([...name].length === 1) return name;
  const key = namedKey(name);
  if (key === undefined) {
    throw new UnknownKeyError(
      `Unknown key "${name}". Use a single character or one of: ${knownKeyNames().join(", ")}.`,
    );
  }
  return key.webdriver;
}

/** keyDown + keyUp for each code point of `text`. */
export function textKeyActions(text: string): KeyAction[] {
  const actions: KeyAction[] = [];
  for (const char of text) {
    const value = char === "\n" ? keyValue("Enter") : char === "\t" ? keyValue("Tab") : char;
    actions.push({ type: "keyDown", value }, { type: "keyUp", value });
  }
  return actions;
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

/** The input.performActions sources of one step; empty for a pause. */
export function stepSources(step: PlanStep): SourceActions[] {
  switch (step.kind) {
    case "click": {
      const actions: PointerAction[] = [moveTo(step)];
      const count = Math.max(1, Math.min(MAX_CLICK_COUNT, step.count ?? 1));
      for (let i = 0; i < count; i++)
        actions.push({ type: "pointerDown", button: 0 }, { type: "pointerUp", button: 0 });
      return [pointer(actions)];
    }
    case "move":
      return [pointer([moveTo(step)])];
    case "drag": {
      const { from, to } = step;
      const actions: PointerAction[] = [moveTo(from), { type: "pointerDown", button: 0 }];
      for (let i = 1; i <= DRAG_MOVE_STEPS; i++) {
        const t = i / DRAG_MOVE_STEPS;
        const at = { x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t };
        actions.push(moveTo(at, Math.round(DRAG_DURATION_MS / DRAG_MOVE_STEPS)));
      }
      actions.push({ type: "pointerUp", button: 0 });
      return [pointer(actions)];
    }
    case "keys":
      return [keyboard(chordKeyActions(step.keys))];
    case "text":
      return [keyboard(textKeyActions(step.text))];
    case "pause":
      return [];
  }
}

/** Presses the steps in order through `io`. */
export async function pressPlan(steps: readonly PlanStep[], io: PlanPressIo): Promise<void> {
  for (const step of steps) {
    if (step.kind === "pause") await io.pause(Math.max(0, Math.min(MAX_PAUSE_MS, step.ms)));
    else await io.perform(stepSources(step));
  }
}

/** Checks that a plan step has the shape pressPlan executes; a reason when it does not. */
export function invalidStepReason(step: unknown): string | undefined {
  if (typeof step !== "object" || step === null) return "a step is not an object";
  const s = step as Record<string, unknown>;
  const isPoint = (p: unknown) =>
    typeof p === "object" &&
    p !== null &&
    Number.isFinite((p as ViewportPoint).x) &&
    Number.isFinite((p as ViewportPoint).y);
  switch (s.kind) {
    case "click":
    case "move":
      return isPoint(s) ? undefined : `${s.kind} step without x/y`;
    case "drag":
      return isPoint(s.from) && isPoint(s.to) ? undefined : "drag step without from/to points";
    case "keys":
      return Array.isArray(s.keys) && s.keys.every((k) => typeof k === "string")
        ? undefined
        : "keys step without keys";
    case "text":
      return typeof s.text === "string" ? undefined : "text step without text";
    case "pause":
      return Number.isFinite(s.ms) ? undefined : "pause step without ms";
    default:
      return `unknown step kind ${JSON.stringify(s.kind)}`;
  }
}
