/**
 * The runner's line to the page script (@webbrain/page) inside each document.
 *
 * The script lives in a sandbox realm named "webbrain": the page's own scripts cannot see it,
 * call it or patch what it uses. It arrives two ways, because neither alone is enough:
 * a preload script for every document created after `install()`, and an injection on demand
 * for documents that existed before (the first about:blank, frames already loaded).
 *
 * Invariants:
 * - `call` answers the page action's result as plain JSON. DOM nodes in it are left out, or,
 *   with `keepNodes`, come back as ElementHandles (sharedId), including nodes inside closed
 *   shadow roots.
 * - An exception thrown by the page script is a failed result, not a thrown error: the model
 *   is told and the run goes on. Only a broken context (closed tab, dead browser) throws.
 */
import type { BidiClient } from "@webbrain/bidi";
import type * as Bidi from "webdriver-bidi-protocol";
import {
  HOSTS_MARKER,
  MAX_PROBE_ROUNDS,
  PRIVILEGED_ROOTS_SHIM,
  PROBE_GLOBAL,
  PROBE_SHIM,
  probedHosts,
} from "./closed-shadow-roots.js";
import { fromRemoteValue, type PlainValue } from "./remote-value.js";

export const PAGE_SANDBOX = "webbrain";
/** What the installed script answers instead of a result when `__webbrainPage` is missing. */
const MISSING_MARKER = "__webbrainPageMissing";
/** Stands for a DOM node inside a packed page result (PAGE_CALL_SHIM). */
const NODE_MARKER = "__webbrainNode";

/**
 * Installed in the sandbox with the page script (same installer, so both are there or neither):
 * runs one action and packs its result. Calls only name it, because Firefox compiles a call's
 * source text on every call (the packing code inline cost ~0.2 ms a call, paid twice per click).
 * A probing call (actions that search) passes `hosts`, `roots` and `probe`: the installed probe
 * records the roots and looks for custom elements not yet probed first (closed-shadow-roots.ts),
 * and when there are some, they are the answer instead of the action's result.
 *
 * A page result travels back as JSON text (an array costs Firefox more to serialize than a
 * string, and a tree of BiDi remote values far more), made by the page layer's `handleJson` when
 * the caller wants no nodes (one serialization, no copy, and a plain string rather than a
 * promise when the action does not wait: a resolve or verify step). DOM nodes in it (the page layer's
 * `element`; any node, to be safe) are dropped unless the caller keeps them: then they are cut
 * out and sent after the text, `[json, ...nodes]`, each node's place in the JSON marked
 * `{"${NODE_MARKER}": index}`. Only callers that act on a node (an upload's file input) keep
 * them: serializing a node costs Firefox ~0.35 ms, on every click it would be waste.
 */
const PAGE_CALL_GLOBAL = "__webbrainCall";
const PAGE_CALL_SHIM = `globalThis.${PAGE_CALL_GLOBAL} = (action, paramsJson, keepNodes, hosts, roots, probe) => {
  const page = globalThis.__webbrainPage;
  if (!page || typeof page.handle !== "function") return { ${MISSING_MARKER}: true };
  if (hosts) {
    const found = globalThis.${PROBE_GLOBAL}(hosts, roots, probe);
    if (found) return { ${HOSTS_MARKER}: found };
  }
  if (!keepNodes && typeof page.handleJson === "function") return page.handleJson(action, paramsJson);
  return page.handle(action, JSON.parse(paramsJson)).then((result) => {
    const nodes = [];
    const json = JSON.stringify(result, (key, value) => {
      if (value === null || typeof value !== "object" || typeof value.nodeType !== "number" || typeof value.nodeName !== "string") return value;
      if (!keepNodes) return undefined;
      nodes.push(value);
      return { ${NODE_MARKER}: nodes.length - 1 };
    });
    return nodes.length === 0 ? json : [json, ...nodes];
  });
};`;

/**
 * The expression that runs one action in the sandbox: a `script.evaluate` with the arguments
 * written in as string literals. Firefox answers an evaluate ~0.3 ms sooner than the same call
 * as `script.callFunction` with arguments (it compiles and calls one script instead of a
 * function it then applies). JSON.stringify of a string is a valid JS string literal, so the
 * text is never code. With `probe`, the call first has the installed probe
 * (closed-shadow-roots.ts) look for custom elements not yet probed, and answers them instead
 * when there are some.
 */
function pageCallExpression(action: string, paramsJson: string, keepNodes: boolean, probe: boolean): string {
  const args = `${JSON.stringify(action)}, ${JSON.stringify(paramsJson)}, ${keepNodes}${probe ? ", [], [], true" : ""}`;
  return `globalThis.${PAGE_CALL_GLOBAL} ? globalThis.${PAGE_CALL_GLOBAL}(${args}) : { ${MISSING_MARKER}: true }`;
}

/**
 * The later rounds of a probing call, which hand the sandbox the hosts and roots the previous
 * round found (as handles, so a call with arguments).
 */
const PROBING_CALL_FUNCTION = `function (action, paramsJson, keepNodes, hosts, roots, probe) {
  const call = globalThis.${PAGE_CALL_GLOBAL};
  return call ? call(action, paramsJson, keepNodes, hosts, roots, probe) : { ${MISSING_MARKER}: true };
}`;

/** Ends the page layer's pending waits in a sandbox (the page layer's `cancelWaits`). */
const CANCEL_WAITS_EXPRESSION =
  'typeof globalThis.__webbrainPage?.cancelWaits === "function" ? globalThis.__webbrainPage.cancelWaits() : 0';

/** Nodes as handles, closed shadow roots included; results are JSON so depth is unlimited. */
export const SERIALIZATION_OPTIONS: Bidi.Script.SerializationOptions = {
  maxDomDepth: 0,
  maxObjectDepth: null,
  includeShadowTree: "all",
};

export interface PageCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Expose closed shadow roots to the page layer before the action (actions that search). */
  probeShadowRoots?: boolean;
  /** Keep DOM nodes of the result as ElementHandles (else they are left out). */
  keepNodes?: boolean;
}

export class PageScriptError extends Error {
  override readonly name = "PageScriptError";
}

export class PageScriptChannel {
  readonly #client: BidiClient;
  readonly #script: string;
  #preloadId: string | undefined;

  constructor(client: BidiClient, pageScript: string) {
    this.#client = client;
    this.#script = pageScript;
  }

  /** The function that installs the page script in a sandbox: shims first, then the layer. */
  #installer(): string {
    return `() => {\n${PRIVILEGED_ROOTS_SHIM}\n${PROBE_SHIM}\n${PAGE_CALL_SHIM}\n${this.#script}\n}`;
  }

  /** Registers the preload script for every future document (all contexts, the sandbox). */
  async install(): Promise<void> {
    if (this.#preloadId || !this.#script) return;
    const result = await this.#client.send("script.addPreloadScript", {
      functionDeclaration: this.#installer(),
      sandbox: PAGE_SANDBOX,
    });
    this.#preloadId = result.script;
  }

  /** Calls `__webbrainPage.handle(action, params)` in the context's sandbox. */
  async call(
    context: string,
    action: string,
    params: unknown,
    opts: PageCallOptions = {},
  ): Promise<PlainValue> {
    if (!this.#script)
      throw new PageScriptError("This session runs without the page script; page actions are unavailable.");
    let result = await this.#callOnce(context, action, params, opts);
    if (isMissingMarker(result)) {
      await this.#inject(context, opts);
      result = await this.#callOnce(context, action, params, opts);
      if (isMissingMarker(result)) {
        throw new PageScriptError(
          `The page script did not install in context ${context}; the page may block scripts (e.g. a PDF viewer or about: page).`,
        );
      }
    }
    return result;
  }

  /** Runs a function in the sandbox with handles as arguments (e.g. verify an element). */
  async callWith(
    context: string,
    functionDeclaration: string,
    args: Bidi.Script.LocalValue[],
    opts: PageCallOptions = {},
  ): Promise<PlainValue> {
    return unwrapEvaluateResult(
      await this.#sandboxCall(context, functionDeclaration, args, SERIALIZATION_OPTIONS, opts),
    );
  }

  /**
   * Ends the page layer's waits in this context's sandbox (wait_for_stable, wait_for_element):
   * after Stop, a call the client abandoned would otherwise keep waiting in Firefox until its
   * own timeout. Answers how many waits it ended.
   */
  async cancelWaits(context: string): Promise<number> {
    const result = await this.#client.send("script.evaluate", {
      expression: CANCEL_WAITS_EXPRESSION,
      awaitPromise: false,
      target: { context, sandbox: PAGE_SANDBOX },
      resultOwnership: "none",
    });
    return result.type === "success" &&
      result.result.type === "number" &&
      typeof result.result.value === "number"
      ? result.result.value
      : 0;
  }

  async #callOnce(
    context: string,
    action: string,
    params: unknown,
    opts: PageCallOptions,
  ): Promise<PlainValue> {
    const paramsJson = JSON.stringify(params ?? {});
    const keepNodes = opts.keepNodes === true;
    const probe = opts.probeShadowRoots === true;
    // A probe answer needs depth 1 for the hosts' shadow roots to be serialized.
    const serializationOptions = probe ? { ...SERIALIZATION_OPTIONS, maxDomDepth: 1 } : SERIALIZATION_OPTIONS;
    let result = await this.#client.send(
      "script.evaluate",
      {
        expression: pageCallExpression(action, paramsJson, keepNodes, probe),
        awaitPromise: true,
        target: { context, sandbox: PAGE_SANDBOX },
        serializationOptions,
        resultOwnership: "none",
      },
      opts,
    );
    for (let round = 1; probe; round++) {
      const found = result.type === "success" ? probedHosts(result.result) : undefined;
      if (!found) break;
      result = await this.#sandboxCall(
        context,
        PROBING_CALL_FUNCTION,
        [
          { type: "string", value: action },
          { type: "string", value: paramsJson },
          { type: "boolean", value: keepNodes },
          found.hosts,
          found.roots,
          { type: "boolean", value: round < MAX_PROBE_ROUNDS },
        ],
        serializationOptions,
        opts,
      );
    }
    return unpackPageResult(result);
  }

  #sandboxCall(
    context: string,
    functionDeclaration: string,
    args: Bidi.Script.LocalValue[],
    serializationOptions: Bidi.Script.SerializationOptions,
    opts: PageCallOptions,
  ): Promise<Bidi.Script.EvaluateResult> {
    return this.#client.send(
      "script.callFunction",
      {
        functionDeclaration,
        awaitPromise: true,
        target: { context, sandbox: PAGE_SANDBOX },
        arguments: args,
        serializationOptions,
        resultOwnership: "none",
      },
      opts,
    );
  }

  async #inject(context: string, opts: PageCallOptions): Promise<void> {
    const result = await this.#client.send(
      "script.callFunction",
      {
        functionDeclaration: this.#installer(),
        awaitPromise: false,
        target: { context, sandbox: PAGE_SANDBOX },
        resultOwnership: "none",
      },
      opts,
    );
    if (result.type === "exception") {
      throw new PageScriptError(
        `The page script failed to start in context ${context}: ${result.exceptionDetails.text}`,
      );
    }
  }
}

function isMissingMarker(value: PlainValue): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && MISSING_MARKER in value;
}

/** A page-script exception becomes `{ success: false, error }`; success values become JSON. */
export function unwrapEvaluateResult(result: Bidi.Script.EvaluateResult): PlainValue {
  if (result.type === "exception") {
    return { success: false, error: `The page script threw: ${result.exceptionDetails.text}` };
  }
  return fromRemoteValue(result.result);
}

/** A packed page result (PAGE_CALL_SHIM) as the plain result, its nodes back in place as handles. */
function unpackPageResult(result: Bidi.Script.EvaluateResult): PlainValue {
  if (result.type === "success" && result.result.type === "string")
    return JSON.parse(result.result.value) as PlainValue;
  if (result.type !== "success" || result.result.type !== "array") return unwrapEvaluateResult(result);
  const [json, ...nodes] = result.result.value ?? [];
  if (json?.type !== "string") return unwrapEvaluateResult(result);
  return JSON.parse(json.value, (_key, value: PlainValue) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
    const index = (value as { [NODE_MARKER]?: unknown })[NODE_MARKER];
    if (typeof index !== "number" || Object.keys(value).length !== 1) return value;
    const node = nodes[index];
    return node ? fromRemoteValue(node) : null;
  }) as PlainValue;
}
