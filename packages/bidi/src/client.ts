/**
 * BidiClient: typed WebDriver BiDi commands and events over one `BidiTransport`.
 *
 * Invariants:
 * - Wire ids are allocated here, strictly increasing, never reused; `sendRaw` maps the answer back
 *   to the caller's own id so a batch engine can use any ids it likes.
 * - Every pending command settles exactly once: answer, error, timeout, abort, or close. When the
 *   transport closes (or `destroy` is called because Firefox died) all pending commands reject
 *   at once with `BidiConnectionClosedError`; later sends reject immediately. Nothing hangs.
 * - The caller's stack is captured synchronously in `send` / `sendRaw`, once per command, into a
 *   plain holder (V8 formats it only if read); the typed error is built only when the command
 *   fails, with the captured frames under its own name and message, so its stack is the caller's.
 * - `rawAnswerText(answer)` is the JSON text of a `sendRaw` answer exactly as Firefox sent it, the
 *   id swapped for the caller's, when that swap can be done on the text without parsing (Firefox
 *   writes `{"type":...,"id":N,...}`); otherwise undefined. Firefox writes its answers with
 *   JSON.stringify, so the text equals `JSON.stringify(answer)`: callers that need the answer's
 *   text take it here instead of serializing a large answer (a screenshot) a second time.
 * - Event listeners are local (`on`); what Firefox sends is controlled by `subscribe`, which wraps
 *   `session.subscribe` / `session.unsubscribe`.
 */
import type * as Bidi from "webdriver-bidi-protocol";
import {
  BidiAbortError,
  BidiConnectionClosedError,
  BidiError,
  BidiTimeoutError,
  CLIENT_ERROR_CODES,
} from "./errors.js";
import type { BidiTransport } from "./transport.js";

export type Commands = Bidi.Commands;
export type BidiMethod = keyof Commands;
export type ParamsOf<M extends BidiMethod> = Commands[M]["params"];
export type ResultOf<M extends BidiMethod> = Commands[M]["returnType"];

/** Event names Firefox may send, with their typed params. */
export type BidiEventName = Bidi.EventData["method"];
export type EventParamsOf<E extends BidiEventName> = Extract<Bidi.EventData, { method: E }>["params"];

/** An event frame exactly as Firefox sent it. */
export interface BidiEventFrame {
  type: "event";
  method: string;
  params: unknown;
  [key: string]: unknown;
}

/** A command frame for `sendRaw`. `id` is the caller's; the wire id is the client's. */
export interface RawCommandFrame {
  id?: number;
  method: string;
  params: unknown;
}

export interface SendOptions {
  /** Reject with `BidiTimeoutError` after this many ms. 0 disables. Defaults to the client's. */
  timeoutMs?: number;
  /** Reject with `BidiAbortError` when this fires. */
  signal?: AbortSignal;
}

export interface BidiClientOptions {
  /** Default per-command timeout in ms (0 = none). */
  defaultTimeoutMs?: number;
}

export interface Subscription {
  /** Firefox's subscription id (BiDi `session.subscribe` result), when it sent one. */
  readonly id: string | undefined;
  unsubscribe(): Promise<void>;
}

/** Generous default: navigations of slow pages legitimately take tens of seconds. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
/** Listener name that receives every event. */
export const ALL_EVENTS = "*";

type EventHandler = (params: unknown, raw: BidiEventFrame) => void;

/**
 * Wire text of sendRaw answers, keyed by the answer object. Weak, so an answer nobody keeps does
 * not keep its text; kept off the object so it never shows in comparisons or serialization.
 */
const rawAnswerTexts = new WeakMap<object, string>();

/**
 * The JSON text of an answer `sendRaw` resolved with, as Firefox sent it (under the caller's id),
 * or undefined when the client could not take it from the wire as is. Equals
 * `JSON.stringify(answer)` for answers Firefox wrote, as long as nobody has mutated the answer.
 */
export function rawAnswerText(answer: unknown): string | undefined {
  return typeof answer === "object" && answer !== null ? rawAnswerTexts.get(answer) : undefined;
}

/** Holds the caller's stack, captured in send/sendRaw; read only when a command fails. */
interface StackSite {
  stack?: string;
}

interface PendingCommand {
  method: string;
  /** The caller's stack, captured before any await. */
  site: StackSite;
  /** sendRaw: resolve with the whole answer frame, success or error. */
  raw: boolean;
  callerId: number | undefined;
  resolve(value: unknown): void;
  reject(err: BidiError): void;
  cleanup(): void;
}

interface ResponseFrame {
  type?: string;
  id?: number | null;
  result?: unknown;
  error?: string;
  message?: string;
  stacktrace?: string;
  method?: string;
  params?: unknown;
}

export class BidiClient {
  #transport: BidiTransport;
  #nextId = 1;
  #pending = new Map<number, PendingCommand>();
  #listeners = new Map<string, Set<EventHandler>>();
  #closeCallbacks = new Set<(reason: Error) => void>();
  #closedReason: Error | undefined;
  #defaultTimeoutMs: number;

  constructor(transport: BidiTransport, opts: BidiClientOptions = {}) {
    this.#transport = transport;
    this.#defaultTimeoutMs = opts.defaultTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    transport.onMessage((text) => this.#onMessage(text));
    transport.onClose((reason) => this.destroy(reason));
  }

  get closed(): boolean {
    return this.#closedReason !== undefined;
  }

  /** Why the client closed, once it has. */
  get closeReason(): Error | undefined {
    return this.#closedReason;
  }

  /** Number of commands awaiting an answer. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Sends a typed BiDi command and resolves with its result. */
  send<M extends BidiMethod>(method: M, params: ParamsOf<M>, opts?: SendOptions): Promise<ResultOf<M>> {
    const site: StackSite = {};
    Error.captureStackTrace(site, this.send);
    return this.#dispatch(method, params, site, false, undefined, opts) as Promise<ResultOf<M>>;
  }

  /**
   * Sends an untyped frame and resolves with Firefox's answer object verbatim (success or error),
   * its `id` replaced by the caller's `frame.id` when given. Rejects only when no answer can come:
   * timeout, abort, or closed connection.
   */
  sendRaw(frame: RawCommandFrame, opts?: SendOptions): Promise<unknown> {
    const site: StackSite = {};
    Error.captureStackTrace(site, this.sendRaw);
    return this.#dispatch(frame.method, frame.params, site, true, frame.id, opts);
  }

  #dispatch(
    method: string,
    params: unknown,
    site: StackSite,
    raw: boolean,
    callerId: number | undefined,
    opts: SendOptions | undefined,
  ): Promise<unknown> {
    if (this.#closedReason) {
      return Promise.reject(closedError(method, site, this.#closedReason));
    }
    const signal = opts?.signal;
    if (signal?.aborted) {
      return Promise.reject(abortedError(method, site, signal));
    }
    const id = this.#nextId++;
    let text: string;
    try {
      text = JSON.stringify({ id, method, params });
    } catch (cause) {
      const error = new BidiError(
        method,
        "invalid argument",
        `${method}: params cannot be serialized to JSON (${String(cause)})`,
      );
      error.stack = rewriteStackHeader(site, error);
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const timeoutMs = opts?.timeoutMs ?? this.#defaultTimeoutMs;
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const pending: PendingCommand = {
        method,
        site,
        raw,
        callerId,
        resolve,
        reject,
        cleanup: () => {
          if (timer) clearTimeout(timer);
          if (onAbort) signal?.removeEventListener("abort", onAbort);
        },
      };
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          this.#settle(id)?.reject(timedOutError(method, site, timeoutMs));
        }, timeoutMs);
      }
      if (signal) {
        onAbort = () => this.#settle(id)?.reject(abortedError(method, site, signal));
        signal.addEventListener("abort", onAbort, { once: true });
      }
      this.#pending.set(id, pending);
      try {
        this.#transport.send(text);
      } catch (cause) {
        this.#settle(id)?.reject(
          closedError(method, site, cause instanceof Error ? cause : new Error(String(cause))),
        );
      }
    });
  }

  /** Removes a pending command and clears its timers; undefined if it already settled. */
  #settle(id: number): PendingCommand | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    pending.cleanup();
    return pending;
  }

  #onMessage(text: string): void {
    let frame: ResponseFrame;
    try {
      frame = JSON.parse(text) as ResponseFrame;
    } catch {
      return; // Not JSON: nothing can be matched to it.
    }
    if (frame.type === "event" && typeof frame.method === "string") {
      this.#emit(frame as BidiEventFrame);
      return;
    }
    if (typeof frame.id !== "number") return; // e.g. an error for an unparseable command
    const pending = this.#settle(frame.id);
    if (!pending) return; // answer to a command that already timed out or was aborted
    if (pending.raw) {
      const wireId = frame.id;
      const answerText =
        pending.callerId === undefined ? text : swapAnswerId(text, frame.type, wireId, pending.callerId);
      if (pending.callerId !== undefined) frame.id = pending.callerId;
      if (answerText !== undefined) rawAnswerTexts.set(frame, answerText);
      pending.resolve(frame);
      return;
    }
    if (frame.type === "error") {
      const code = frame.error ?? "unknown error";
      const error = new BidiError(
        pending.method,
        code,
        `${pending.method}: ${code}: ${frame.message ?? "(no message)"}`,
      );
      error.remoteStacktrace = frame.stacktrace;
      error.stack = rewriteStackHeader(pending.site, error);
      pending.reject(error);
      return;
    }
    pending.resolve(frame.result);
  }

  #emit(frame: BidiEventFrame): void {
    const specific = this.#listeners.get(frame.method);
    const wildcard = this.#listeners.get(ALL_EVENTS);
    for (const set of [specific, wildcard]) {
      if (!set) continue;
      for (const handler of [...set]) {
        try {
          handler(frame.params, frame);
        } catch (err) {
          // A broken listener must not stop dispatch; surface it like an EventEmitter would.
          queueMicrotask(() => {
            throw err;
          });
        }
      }
    }
  }

  /** Adds a local listener for one event method (or "*" for all). Returns its remover. */
  on<E extends BidiEventName>(
    event: E,
    handler: (params: EventParamsOf<E>, raw: BidiEventFrame) => void,
  ): () => void;
  on(event: string, handler: (params: unknown, raw: BidiEventFrame) => void): () => void;
  on(event: string, typedHandler: (params: never, raw: BidiEventFrame) => void): () => void {
    // Params are whatever Firefox sent for this method; the overloads above give them their type.
    const handler = typedHandler as EventHandler;
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(handler);
    return () => {
      const current = this.#listeners.get(event);
      current?.delete(handler);
      if (current?.size === 0) this.#listeners.delete(event);
    };
  }

  /**
   * Asks Firefox to send these events (module names like "log" or full names like
   * "browsingContext.load"), optionally only for some top-level contexts.
   */
  async subscribe(events: string[], contexts?: string[], opts?: SendOptions): Promise<Subscription> {
    const params = { events, ...(contexts ? { contexts } : {}) } as ParamsOf<"session.subscribe">;
    const result = (await this.send("session.subscribe", params, opts)) as { subscription?: string };
    const id = result?.subscription;
    let done = false;
    return {
      id,
      unsubscribe: async () => {
        if (done || this.closed) return;
        done = true;
        const unsubParams = id ? { subscriptions: [id] } : { events, ...(contexts ? { contexts } : {}) };
        await this.send("session.unsubscribe", unsubParams as ParamsOf<"session.unsubscribe">);
      },
    };
  }

  /** Calls `cb` once when the client closes (at once if it already has). Returns its remover. */
  onClose(cb: (reason: Error) => void): () => void {
    if (this.#closedReason) {
      const reason = this.#closedReason;
      queueMicrotask(() => cb(reason));
      return () => {};
    }
    this.#closeCallbacks.add(cb);
    return () => this.#closeCallbacks.delete(cb);
  }

  /**
   * Marks the client closed with `reason` and fails every pending command at once. Used when the
   * socket closes and by the launcher when the Firefox process dies (a clearer reason than the
   * socket's). Idempotent: the first reason wins.
   */
  destroy(reason: Error): void {
    if (this.#closedReason) return;
    this.#closedReason = reason;
    const pendings = [...this.#pending.keys()].map((id) => this.#settle(id));
    for (const pending of pendings) {
      if (pending) pending.reject(closedError(pending.method, pending.site, reason));
    }
    for (const cb of this.#closeCallbacks) {
      try {
        cb(reason);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
    this.#closeCallbacks.clear();
    void this.#transport.close().catch(() => {});
  }

  /** Closes the connection. Pending commands fail with BidiConnectionClosedError. */
  async close(): Promise<void> {
    this.destroy(new Error("the BiDi connection was closed by this client"));
    await this.#transport.close();
  }
}

/**
 * The answer text with its top-level id replaced, when the text starts the way Firefox writes an
 * answer: `{"type":"<type>","id":<wire id>,` (no whitespace). Anything else: undefined.
 */
function swapAnswerId(
  text: string,
  type: string | undefined,
  wireId: number,
  callerId: number,
): string | undefined {
  if (type !== "success" && type !== "error") return undefined;
  const prefix = `{"type":"${type}","id":${wireId},`;
  if (!text.startsWith(prefix)) return undefined;
  return `{"type":"${type}","id":${callerId},${text.slice(prefix.length)}`;
}

function closedError(method: string, site: StackSite, reason: Error): BidiConnectionClosedError {
  const out = new BidiConnectionClosedError(
    method,
    CLIENT_ERROR_CODES.connectionClosed,
    `${method}: ${reason.message}. The command did not complete; launch or connect again.`,
  );
  out.stack = rewriteStackHeader(site, out);
  out.cause = reason;
  return out;
}

function timedOutError(method: string, site: StackSite, timeoutMs: number): BidiTimeoutError {
  const out = new BidiTimeoutError(
    method,
    CLIENT_ERROR_CODES.timeout,
    `${method}: no answer from Firefox within ${timeoutMs} ms. Raise timeoutMs if the command` +
      " is legitimately slow; Firefox may still carry it out.",
  );
  out.stack = rewriteStackHeader(site, out);
  return out;
}

function abortedError(method: string, site: StackSite, signal: AbortSignal): BidiAbortError {
  const reason: unknown = signal.reason;
  const detail = reason instanceof Error ? reason.message : reason === undefined ? "" : String(reason);
  const out = new BidiAbortError(
    method,
    CLIENT_ERROR_CODES.aborted,
    `${method}: aborted by the caller${detail ? ` (${detail})` : ""}. Firefox may still carry it out.`,
  );
  out.stack = rewriteStackHeader(site, out);
  out.cause = reason;
  return out;
}

/** Keeps the caller's frames (captured in send) under the new error's name and message. */
function rewriteStackHeader(site: StackSite, out: BidiError): string {
  const captured = site.stack ?? "";
  // The holder is a plain object, so its header is the single line "Error"; drop it.
  const newline = captured.indexOf("\n");
  const frames = newline === -1 ? "" : captured.slice(newline + 1);
  return `${out.name}: ${out.message}\n${frames}`;
}
