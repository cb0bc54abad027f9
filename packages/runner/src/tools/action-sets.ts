/**
 * Which page actions the runner presses with trusted input, and which search the page (so closed
 * shadow roots are shown to the sandbox first). Both come from the tool declarations
 * (@webbrain/agent tool-catalog.ts: `runs.trustedInput`, `runs.searchesShadowRoots`), so a new
 * tool is routed by its declaration, not by a list here.
 */
import { SHADOW_SEARCHING_ACTIONS, TRUSTED_INPUT_ACTIONS } from "@webbrain/agent";

/** Actions the page layer can resolve to a plan of trusted input. */
export const TRUSTED_ACTIONS: ReadonlySet<string> = TRUSTED_INPUT_ACTIONS;

/** Actions that look for elements: closed shadow roots are exposed to the sandbox first. */
export const SEARCHING_ACTIONS: ReadonlySet<string> = SHADOW_SEARCHING_ACTIONS;
