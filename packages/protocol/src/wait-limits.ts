/**
 * The bounds of the page layer's waits (`wait_for_stable`, `wait_for_element`): the page layer
 * refuses a timeout outside them, and a port that adds its own half to a wait (the network in
 * flight) measures against the same numbers.
 */

/** Timeout of the wait actions when none is given, ms. */
export const WAIT_DEFAULT_TIMEOUT_MS = 5000;
/** The most a caller may ask a wait action for, ms. */
export const WAIT_MAX_TIMEOUT_MS = 60_000;
