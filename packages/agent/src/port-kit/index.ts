/**
 * What both BrowserPorts (the runner over BiDi, the add-on over browser.*) compose the same way,
 * built once: each takes its realm's I/O (an event source, a page call, a clock) through a small
 * interface. Racing a wait against Stop is `raceAbort` (loop/abort-race.ts), which the loop uses too.
 */
export * from "./frame-pick.js";
export * from "./in-flight-requests.js";
export * from "./ref-floors.js";
export * from "./side-effect-bounds.js";
export * from "./stable-wait.js";
