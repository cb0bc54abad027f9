/**
 * Trusted input: the page layer's resolve plan (click here, type this, press these keys),
 * carried out with `input.performActions`, so pages see `isTrusted === true` events.
 *
 * Invariants:
 * - Steps run in order, each as one `input.performActions` call; pointer coordinates are CSS
 *   pixels in the viewport of the context the steps are performed in (a frame's own plan is
 *   performed in that frame's context), rounded to whole pixels.
 * - Every pressed button and key is released within the same call, so a failed step never
 *   leaves a key held down for the next action.
 */
import type { BidiClient } from "@webbrain/bidi";
import type { PlanStep, ViewportPoint } from "@webbrain/page/protocol";
import type * as Bidi from "webdriver-bidi-protocol";
import { chordKeyActions, textKeyActions } from "./key-actions.js";
import { sleepUnlessStopped, throwIfStopped } from "./stop-signal.js";

/** One step of the page layer's resolve plan, pressed here with trusted input. */
export type InputStep = PlanStep;

/** Intermediate pointer moves of a drag, so drag libraries see motion, not a teleport. */
const DRAG_MOVE_STEPS = 5;
/** Time the drag's moves take, ms: long enough for pages that throttle pointermove. */
const DRAG_DURATION_MS = 150;
/** Upper bound of a pause step, ms, so a wrong plan cannot stall a run. */
const MAX_PAUSE_MS = 5_000;

const MOUSE_ID = "webbrain-mouse";
const KEYBOARD_ID = "webbrain-keyboard";

type PointerAction = Bidi.Input.PointerSourceAction;

function moveTo(point: ViewportPoint, duration = 0): PointerAction {
  return {
    type: "pointerMove",
    x: Math.round(point.x),
    y: Math.round(point.y),
    origin: "viewport",
    ...(duration ? { duration } : {}),
  };
}

function pointer(actions: PointerAction[]): Bidi.Input.SourceActions {
  return { type: "pointer", id: MOUSE_ID, parameters: { pointerType: "mouse" }, actions };
}

function keyboard(actions: Bidi.Input.KeySourceAction[]): Bidi.Input.SourceActions {
  return { type: "key", id: KEYBOARD_ID, actions };
}

/** The input.performActions sources of one step; empty for a pause. */
export function stepSources(step: InputStep): Bidi.Input.SourceActions[] {
  switch (step.kind) {
    case "click": {
      const actions: PointerAction[] = [moveTo(step)];
      const count = Math.max(1, Math.min(3, step.count ?? 1));
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

/**
 * Presses the steps in order. Stop (the signal) is checked before each step and ends a pause at
 * once; a press already sent completes in Firefox (it releases what it pressed).
 */
export async function performSteps(
  client: BidiClient,
  context: string,
  steps: readonly InputStep[],
  signal?: AbortSignal,
): Promise<void> {
  for (const step of steps) {
    throwIfStopped(signal, "input.performActions");
    if (step.kind === "pause") {
      await sleepUnlessStopped(
        Math.max(0, Math.min(MAX_PAUSE_MS, step.ms)),
        signal,
        "a pause in the input plan",
      );
      continue;
    }
    await client.send(
      "input.performActions",
      { context, actions: stepSources(step) },
      signal ? { signal } : {},
    );
  }
}

/** Checks that a plan from the page has the shape we execute; returns a reason when not. */
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
