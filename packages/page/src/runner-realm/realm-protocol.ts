/**
 * What the runner and its sandbox realm agree on: global names, the markers a packed answer
 * uses, probe limits. Pure constants (no DOM), imported by the realm code bundled into the
 * sandbox and by the runner in Node (`@webbrain/page/runner-realm`).
 */

/** `__webbrainCall(action, paramsJson, keepNodes, hosts?, roots?, probe?)`: the one page door. */
export const PAGE_CALL_GLOBAL = "__webbrainCall";
/** `__webbrainRunnerRealm`: element lookups the runner calls with handles (resourceUrl, locate). */
export const REALM_TOOLS_GLOBAL = "__webbrainRunnerRealm";

/** What a call answers instead of a result when `__webbrainPage` is missing. */
export const MISSING_MARKER = "__webbrainPageMissing";
/** Stands for a DOM node inside a packed page result. */
export const NODE_MARKER = "__webbrainNode";
/** Wraps the hosts a probing call answers instead of the action's result. */
export const HOSTS_MARKER = "__webbrainHosts";

/**
 * Answers how many popups the popup blocker stopped in this document since the last take
 * (`src/popup-watch.ts`; the global is `__webbrainPopups`), and resets it.
 */
export const TAKE_BLOCKED_POPUPS_EXPRESSION =
  'typeof globalThis.__webbrainPopups?.takeBlocked === "function" ? globalThis.__webbrainPopups.takeBlocked() : 0';

/** Upper bound of hosts answered per round, so a page of thousands of custom elements stays fast. */
export const MAX_HOSTS_PER_ROUND = 2_000;
/** Probe rounds per call: each round reaches one more level of nested closed roots. */
export const MAX_PROBE_ROUNDS = 3;

/**
 * The expression that runs one action in the sandbox: a `script.evaluate` with the arguments
 * written in as string literals (Firefox answers an evaluate ~0.3 ms sooner than the same call as
 * `script.callFunction` with arguments). JSON.stringify of a string is a valid JS string literal,
 * so the text is never code. With `probe`, the call first has the installed probe look for custom
 * elements not yet probed, and answers them instead when there are some.
 */
export function pageCallExpression(
  action: string,
  paramsJson: string,
  keepNodes: boolean,
  probe: boolean,
): string {
  const args = `${JSON.stringify(action)}, ${JSON.stringify(paramsJson)}, ${keepNodes}${probe ? ", [], [], true" : ""}`;
  return `globalThis.${PAGE_CALL_GLOBAL} ? globalThis.${PAGE_CALL_GLOBAL}(${args}) : { ${MISSING_MARKER}: true }`;
}

/**
 * The later rounds of a probing call, which hand the sandbox the hosts and roots the previous
 * round found (as handles, so a `script.callFunction` with arguments).
 */
export const PROBING_CALL_FUNCTION = `function (action, paramsJson, keepNodes, hosts, roots, probe) {
  const call = globalThis.${PAGE_CALL_GLOBAL};
  return call ? call(action, paramsJson, keepNodes, hosts, roots, probe) : { ${MISSING_MARKER}: true };
}`;

/** `script.callFunction` declarations for the realm's element tools (arguments: handles). */
export const RESOURCE_URL_FUNCTION = `(el) => globalThis.${REALM_TOOLS_GLOBAL}.resourceUrl(el)`;
export const LOCATE_FUNCTION = `(selector) => globalThis.${REALM_TOOLS_GLOBAL}.locate(selector)`;
