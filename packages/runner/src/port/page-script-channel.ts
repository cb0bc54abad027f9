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
import {
  MISSING_MARKER,
  NODE_MARKER,
  PROBING_CALL_FUNCTION,
  pageCallExpression,
} from "@webbrain/page/runner-realm";
import type * as Bidi from "webdriver-bidi-protocol";
import { MAX_PROBE_ROUNDS, probedHosts } from "./closed-shadow-roots.js";
import { fromRemoteValue, type PlainValue } from "./remote-value.js";

export const PAGE_SANDBOX = "webbrain";
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
  readonly #realmScript: string;
  #preloadId: string | undefined;

  /**
   * `pageScript` is the page layer's bundle; `realmScript` the runner's second in-page bundle
   * (@webbrain/page `buildRunnerRealmScript`: the call door, the closed-root probe, the roots
   * shim), installed first in the same sandbox.
   */
  constructor(client: BidiClient, pageScript: string, realmScript: string) {
    this.#client = client;
    this.#script = pageScript;
    this.#realmScript = realmScript;
  }

  /** The function that installs both bundles in a sandbox: the runner's realm code, then the layer. */
  #installer(): string {
    return `() => {\n${this.#realmScript}\n${this.#script}\n}`;
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

/** A packed page result (the page call door, runner-realm/page-call.ts) as the plain result, its nodes back in place as handles. */
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
