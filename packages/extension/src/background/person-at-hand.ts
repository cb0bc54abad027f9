/**
 * pause_for_user in the add-on: the person at the sidebar is the person at hand. One port
 * serves every tab, while a hand-over belongs to one run's tab, so the run manager gives each
 * run's port (decoratePort) `person_at_hand` and a `pauseForUser` that shows that run's
 * take-over card. The agent's dispatch (tool-dispatch.ts) words the result the model reads,
 * with the person's note, as it does for the runner's terminal.
 *
 * Invariants:
 * - Only a port decorated here offers pause_for_user: the bare port (workflow replays, which
 *   have no sidebar run to hold) never waits for a person.
 * - Stop rejects the wait at once with the add-on's AbortError, like any port call.
 */
import type { BrowserPort, PersonAnswer, PortCallOptions } from "@webbrain/agent";
import { raceStop } from "./abort.js";

/** Shows the hand-over and resolves with the person's note once they press Continue. */
export type TakeOver = (message: string, signal?: AbortSignal) => Promise<PersonAnswer>;

/** What a run's port gains when a person may take over: the capability and the wait. */
export function personAtHand(
  port: Pick<BrowserPort, "capabilities">,
  takeOver: TakeOver,
): Pick<BrowserPort, "capabilities" | "pauseForUser"> {
  return {
    capabilities: new Set([...port.capabilities, "person_at_hand"]),
    pauseForUser: (message: string, options: PortCallOptions = {}) =>
      raceStop(takeOver(message, options.signal), options.signal),
  };
}
