/**
 * Trusted input: the page layer's resolve plan (click here, type this, press these keys),
 * pressed with `input.performActions`, so pages see `isTrusted === true` events. How a step
 * becomes BiDi actions, and the key table, live once in @webbrain/page/input-plan (the page
 * tests press plans with the same code); this module adds the runner's BiDi client and Stop.
 *
 * Invariants: see input-plan.ts (order, rounding, every press released within its call). Stop
 * (the signal) is checked before each step and ends a pause at once; a press already sent
 * completes in Firefox (it releases what it pressed).
 */
import type { BidiClient } from "@webbrain/bidi";
import { type PlanPressIo, pressPlan, type SourceActions } from "@webbrain/page/input-plan";
import type { PlanStep } from "@webbrain/page/protocol";
import { sleepUnlessStopped, throwIfStopped } from "../port/stop-signal.js";

export { invalidStepReason, stepSources } from "@webbrain/page/input-plan";

/** One step of the page layer's resolve plan, pressed here with trusted input. */
export type InputStep = PlanStep;

/** The runner's way of pressing: its BiDi client, in one context, stopped by the signal. */
export function bidiPlanIo(client: BidiClient, context: string, signal?: AbortSignal): PlanPressIo {
  return {
    perform: (actions: SourceActions[]) => {
      throwIfStopped(signal, "input.performActions");
      return client.send("input.performActions", { context, actions }, signal ? { signal } : {});
    },
    pause: (ms: number) => sleepUnlessStopped(ms, signal, "a pause in the input plan"),
  };
}

export function performSteps(
  client: BidiClient,
  context: string,
  steps: readonly InputStep[],
  signal?: AbortSignal,
): Promise<void> {
  return pressPlan(steps, bidiPlanIo(client, context, signal));
}
