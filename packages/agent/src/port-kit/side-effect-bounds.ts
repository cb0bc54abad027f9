/**
 * How long both ports wait for what an action set going, after the action itself answered. Each
 * wait ends as soon as its event comes, so a bound costs time only when nothing happens.
 */

/**
 * How long a followed link's navigation or download may take to start after the click was read
 * back. It was 3 s: on a two-core machine with stress-ng beside the suite, a download link's start
 * came 4.8 s after the click, and the click's result lost its download.
 */
export const FOLLOW_START_TIMEOUT_MS = 10_000;
