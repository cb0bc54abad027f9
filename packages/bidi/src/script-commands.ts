/**
 * Typed helpers over `script.evaluate` / `script.callFunction`.
 *
 * Invariants:
 * - A page exception becomes a `BidiScriptError` (a BidiError with code "script exception") whose
 *   message carries the page's own error text; it is never returned as a value.
 * - Results are decoded with `fromRemoteValue`; nodes come back as RemoteValues with `sharedId`.
 * - `target` is a context id, `{context, sandbox?}` (sandbox = isolated realm of that name), or
 *   `{realm}`.
 */
import type * as Bidi from "webdriver-bidi-protocol";
import type { BidiClient, SendOptions } from "./client.js";
import { BidiError } from "./errors.js";
import { fromRemoteValue, toLocalValue } from "./remote-value.js";

export type ScriptTarget = string | Bidi.Script.Target;

export interface ScriptOptions extends SendOptions {
  /** Wait for a returned promise (default true). */
  awaitPromise?: boolean;
  /** Treat the call as a user gesture (allows popups, clipboard...). */
  userActivation?: boolean;
  serializationOptions?: Bidi.Script.SerializationOptions;
  resultOwnership?: Bidi.Script.ResultOwnership;
}

export interface CallFunctionOptions extends ScriptOptions {
  /** `this` for the function (plain data or a remoteRef()). */
  thisArg?: unknown;
}

/** The page's code threw (or rejected). */
export class BidiScriptError extends BidiError {
  override name = "BidiScriptError";
  readonly exceptionDetails: Bidi.Script.ExceptionDetails;
  constructor(method: string, details: Bidi.Script.ExceptionDetails) {
    super(method, "script exception", `${method}: the page script threw: ${details.text}`);
    this.exceptionDetails = details;
  }
}

export function toScriptTarget(target: ScriptTarget): Bidi.Script.Target {
  return typeof target === "string" ? { context: target } : target;
}

function unwrap(method: string, result: Bidi.Script.EvaluateResult): unknown {
  if (result.type === "exception") throw new BidiScriptError(method, result.exceptionDetails);
  return fromRemoteValue(result.result);
}

function commonParams(opts: ScriptOptions) {
  return {
    awaitPromise: opts.awaitPromise ?? true,
    ...(opts.userActivation !== undefined ? { userActivation: opts.userActivation } : {}),
    ...(opts.serializationOptions ? { serializationOptions: opts.serializationOptions } : {}),
    ...(opts.resultOwnership ? { resultOwnership: opts.resultOwnership } : {}),
  };
}

function sendOptions(opts: SendOptions): SendOptions {
  return { timeoutMs: opts.timeoutMs, signal: opts.signal };
}

/** Evaluates an expression in the page and returns its decoded value. */
export async function evaluate<T = unknown>(
  client: BidiClient,
  target: ScriptTarget,
  expression: string,
  opts: ScriptOptions = {},
): Promise<T> {
  const result = await client.send(
    "script.evaluate",
    { expression, target: toScriptTarget(target), ...commonParams(opts) },
    sendOptions(opts),
  );
  return unwrap("script.evaluate", result) as T;
}

/**
 * Calls a function in the page with encoded arguments and returns its decoded value. `fn` is a
 * function declaration string or a function (its source is sent; it must not close over Node
 * variables).
 */
export async function callFunction<T = unknown>(
  client: BidiClient,
  target: ScriptTarget,
  fn: string | ((...args: never[]) => unknown),
  args: readonly unknown[] = [],
  opts: CallFunctionOptions = {},
): Promise<T> {
  const result = await client.send(
    "script.callFunction",
    {
      functionDeclaration: typeof fn === "string" ? fn : fn.toString(),
      target: toScriptTarget(target),
      arguments: args.map((a, i) => toLocalValue(a, `args[${i}]`)),
      ...("thisArg" in opts ? { this: toLocalValue(opts.thisArg, "thisArg") } : {}),
      ...commonParams(opts),
    },
    sendOptions(opts),
  );
  return unwrap("script.callFunction", result) as T;
}
