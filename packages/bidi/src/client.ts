/**
 * BidiClient: typed WebDriver BiDi commands and events over one `BidiTransport`.
 *
 * Invariants:
 * - Wire ids are allocated here, strictly increasing, never reused. A caller with ids of its own
 *   (the batch engine) maps them itself; the client never sees them.
 * - Every pending command settles exactly once: answer, error, timeout, abort, or close. When the
 *   transport closes (or `destroy` is called because Firefox died) all pending commands reject
 *   at once with `BidiConnectionClosedError`; later sends reject immediately. Nothing hangs.
 * - The caller's stack is captured synchronously in `send` / `sendUntyped`, once per command, into a
 *   plain holder (V8 formats it only if read), unless the caller opts out (`captureStack: false`);
 *   the typed error is built only when the command fails, with the captured frames under its own
 *   name and message, so its stack is the caller's.
 * - Per command the hot path allocates one pending record and its promise, no closures: timeouts
 *   share one timer armed for the earliest deadline (it keeps the process alive only while a
 *   command with a timeout is pending), and each AbortSignal gets one listener however many
 *   commands use it, removed once none of them is pending and another signal comes along (or the
 *   client closes).
 * - One seam for layers that read answers off the wire themselves (`SendOptions.answerReader`):
 *   the reader may name the answered command from the text without a parse, and builds what the
 *   command resolves with, errors included. The client knows nothing of what the reader keeps
 *   (the batch engine's wire text and lazy results live in `batch/`).
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

/** An answer frame as parsed from the wire: `{type: "success", id, result}` or `{type: "error", ...}`. */
export interface AnswerFrame {
  type?: string;
  id?: number | null;
  result?: unknown;
  error?: string;
  message?: string;
  stacktrace?: string;
  method?: string;
  params?: unknown;
}

/**
 * The raw-frame seam: a layer that wants answers as Firefox wrote them (the batch engine passes
 * them on as text and parses few results) reads them itself. The client still owns wire ids,
 * timeouts, aborts and close; a command sent with a reader resolves with what the reader builds,
 * success or error, and rejects only when no answer can come.
 */
export interface AnswerReader {
  /**
   * The wire id `text` answers, read from the text without parsing it, or undefined to have the
   * client parse it. Asked only while commands sent with this reader are pending, and trusted
   * only for those commands.
   */
  peekAnswerId(text: string): number | undefined;
  /**
   * What the command resolves with, from the answer's wire text and the transport's size of it;
   * `frame` is the parsed answer unless `peekAnswerId` named it.
   */
  readAnswer(text: string, bytes: number | undefined, frame: AnswerFrame | undefined): unknown;
}

export interface SendOptions {
  /** Reject with `BidiTimeoutError` after this many ms. 0 disables. Defaults to the client's. */
  timeoutMs?: number;
  /** Reject with `BidiAbortError` when this fires. */
  signal?: AbortSignal;
  /**
   * Capture the caller's stack for the error of a failed command (default true). Capturing costs
   * a few microseconds per command; callers that never show a failed command's stack (the batch
   * engine reports failures as data) turn it off. Without it the error's stack is its header only.
   */
  captureStack?: boolean;
  /** Resolve with what this reader builds from the answer's wire text (see AnswerReader). */
  answerReader?: AnswerReader;
}

export interface BidiClientOptions {
  /** Default per-command timeout in ms (0 = none). */
  defaultTimeoutMs?: number;
  /**
   * Where the shared timeout timer comes from; Node's timers unless given. A test passes its own
   * to watch that one timer's ref state, which process-wide counts of timers cannot isolate.
   */
  timers?: TimerOperations;
}

/** The two timer calls the client makes; Node's `setTimeout` / `clearTimeout` by default. */
export interface TimerOperations {
  setTimeout(callback: () => void, ms: number): NodeJS.Timeout;
  clearTimeout(timer: NodeJS.Timeout): void;
}

const NODE_TIMERS: TimerOperations = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer),
};

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

/** Holds the caller's stack, captured in send/sendUntyped; read only when a command fails. */
interface StackSite {
  stack?: string;
}

/** Shared by commands sent without a stack capture: their errors carry only their header. */
const NO_STACK_SITE: StackSite = Object.freeze({});

/** One command awaiting its answer. A class, not closures: it is made for every command. */
class PendingCommand {
  constructor(
    readonly method: string,
    /** The caller's stack, captured before any await. */
    readonly site: StackSite,
    /** Builds what the command resolves with from its answer; undefined: the result, or a BidiError. */
    readonly reader: AnswerReader | undefined,
    /** performance.now() after which the command times out; Infinity for none. */
    readonly deadline: number,
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
    readonly resolve: (value: unknown) => void,
    readonly reject: (err: BidiError) => void,
  ) {}
}

/** The one abort listener a signal gets from this client, and how many pending commands use it. */
interface SignalWatch {
  listener: () => void;
  pending: number;
}

/** Node fires a timer no earlier than asked; this covers rounding between the two clocks. */
const TIMER_SLACK_MS = 1;

export class BidiClient {
  #transport: BidiTransport;
  #nextId = 1;
  #pending = new Map<number, PendingCommand>();
  #listeners = new Map<string, Set<EventHandler>>();
  #closeCallbacks = new Set<(reason: Error) => void>();
  #closedReason: Error | undefined;
  #defaultTimeoutMs: number;
  /** The shared timeout timer, armed for `#timerAt` (performance.now() time). */
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  /** Whether the timer holds the process open: only while a command with a deadline is pending. */
  #timerRefed = false;
  readonly #timers: TimerOperations;
  #signals = new Map<AbortSignal, SignalWatch>();
  /** Observers of sent commands (tests and benches count them); empty on the hot path. */
  #sentListeners = new Set<(method: string) => void>();
  /** Answer readers of pending commands, with how many pending commands use each. */
  #readers = new Map<AnswerReader, number>();
  readonly #onTimer = (): void => this.#expire();

  constructor(transport: BidiTransport, opts: BidiClientOptions = {}) {
    this.#transport = transport;
    this.#defaultTimeoutMs = opts.defaultTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.#timers = opts.timers ?? NODE_TIMERS;
    transport.onMessage((text, bytes) => this.#onMessage(text, bytes));
    transport.onClose((reason) => this.destroy(reason));
  }

  get closed(): boolean {
    return this.#closedReason !== undefined;
  }

  /** Why the client closed, once it has. */
  get closeReason(): Error | undefined {
    return this.#closedReason;
  }

  /**
   * Calls `listener(method)` for every command written to the socket, in order, so a test or a
   * bench can count what a step costs in commands. Returns its remover.
   */
  onCommandSent(listener: (method: string) => void): () => void {
    this.#sentListeners.add(listener);
    return () => this.#sentListeners.delete(listener);
  }

  /** Number of commands awaiting an answer. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Sends a typed BiDi command and resolves with its result. */
  send<M extends BidiMethod>(method: M, params: ParamsOf<M>, opts?: SendOptions): Promise<ResultOf<M>> {
    let site = NO_STACK_SITE;
    if (opts?.captureStack !== false) {
      site = {};
      Error.captureStackTrace(site, this.send);
    }
    return this.#dispatch(method, params, site, opts) as Promise<ResultOf<M>>;
  }

  /**
   * Sends a command whose method the typed table does not know (a module of Firefox's own, or a
   * frame a model wrote for the batch engine). Resolves with its result (or, with an
   * `answerReader`, with what the reader builds); rejects like `send`.
   */
  sendUntyped(method: string, params: unknown, opts?: SendOptions): Promise<unknown> {
    let site = NO_STACK_SITE;
    if (opts?.captureStack !== false) {
      site = {};
      Error.captureStackTrace(site, this.sendUntyped);
    }
    return this.#dispatch(method, params, site, opts);
  }

  #dispatch(
    method: string,
    params: unknown,
    site: StackSite,
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
    const timeoutMs = opts?.timeoutMs ?? this.#defaultTimeoutMs;
    const deadline = timeoutMs > 0 ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY;
    return new Promise((resolve, reject) => {
      const reader = opts?.answerReader;
      const pending = new PendingCommand(method, site, reader, deadline, timeoutMs, signal, resolve, reject);
      this.#pending.set(id, pending);
      if (reader) this.#readers.set(reader, (this.#readers.get(reader) ?? 0) + 1);
      if (deadline !== Number.POSITIVE_INFINITY) this.#armTimer(deadline);
      if (signal) this.#watch(signal);
      try {
        this.#transport.send(text);
        if (this.#sentListeners.size > 0) this.#notifySent(method);
      } catch (cause) {
        this.#settle(id)?.reject(
          closedError(method, site, cause instanceof Error ? cause : new Error(String(cause))),
        );
      }
    });
  }

  #notifySent(method: string): void {
    for (const listener of [...this.#sentListeners]) {
      try {
        listener(method);
      } catch (err) {
        // A broken observer must not fail the command it observed.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  /** Makes sure the shared timer fires by `deadline` and holds the process open meanwhile. */
  #armTimer(deadline: number): void {
    if (this.#timer === undefined || deadline < this.#timerAt) {
      if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
      this.#timerAt = deadline;
      this.#timer = this.#timers.setTimeout(
        this.#onTimer,
        Math.max(0, Math.ceil(deadline - performance.now())),
      );
      this.#timerRefed = true;
    } else if (!this.#timerRefed) {
      this.#timer.ref();
      this.#timerRefed = true;
    }
  }

  /** The shared timer fired: time out what is due, then re-arm for the earliest deadline left. */
  #expire(): void {
    this.#timer = undefined;
    this.#timerRefed = false;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = performance.now() + TIMER_SLACK_MS;
    let next = Number.POSITIVE_INFINITY;
    for (const [id, pending] of [...this.#pending]) {
      if (pending.deadline <= now) {
        this.#settle(id)?.reject(timedOutError(pending.method, pending.site, pending.timeoutMs));
      } else if (pending.deadline < next) {
        next = pending.deadline;
      }
    }
    if (next !== Number.POSITIVE_INFINITY && !this.#closedReason) this.#armTimer(next);
  }

  /** Gives `signal` one abort listener for all commands that use it. */
  #watch(signal: AbortSignal): void {
    const watch = this.#signals.get(signal);
    if (watch) {
      watch.pending += 1;
      return;
    }
    // A new signal: drop listeners of signals no pending command uses any more.
    for (const [other, idle] of this.#signals) {
      if (idle.pending === 0) {
        other.removeEventListener("abort", idle.listener);
        this.#signals.delete(other);
      }
    }
    const listener = (): void => this.#abortCommandsOf(signal);
    this.#signals.set(signal, { listener, pending: 1 });
    signal.addEventListener("abort", listener, { once: true });
  }

  #abortCommandsOf(signal: AbortSignal): void {
    this.#signals.delete(signal);
    for (const [id, pending] of [...this.#pending]) {
      if (pending.signal === signal)
        this.#settle(id)?.reject(abortedError(pending.method, pending.site, signal));
    }
  }

  /** Removes a pending command and releases its timer and signal shares; undefined if it already settled. */
  #settle(id: number): PendingCommand | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    if (pending.signal) {
      const watch = this.#signals.get(pending.signal);
      if (watch) watch.pending -= 1;
    }
    if (pending.reader) {
      const users = (this.#readers.get(pending.reader) ?? 1) - 1;
      if (users === 0) this.#readers.delete(pending.reader);
      else this.#readers.set(pending.reader, users);
    }
    // Nothing pending: the timer may stay armed (re-arming per command costs more) but must not
    // keep the process alive.
    if (this.#pending.size === 0 && this.#timerRefed && this.#timer !== undefined) {
      this.#timer.unref();
      this.#timerRefed = false;
    }
    return pending;
  }

  #onMessage(text: string, bytes: number | undefined): void {
    if (this.#readers.size > 0 && this.#resolvePeeked(text, bytes)) return;
    let frame: AnswerFrame;
    try {
      frame = JSON.parse(text) as AnswerFrame;
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
    if (pending.reader) {
      this.#resolveRead(pending, text, bytes, frame);
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

  /** Lets the readers of pending commands name the answer from its text; true when one did. */
  #resolvePeeked(text: string, bytes: number | undefined): boolean {
    for (const reader of this.#readers.keys()) {
      const id = reader.peekAnswerId(text);
      if (id === undefined || this.#pending.get(id)?.reader !== reader) continue;
      this.#resolveRead(this.#settle(id) as PendingCommand, text, bytes, undefined);
      return true;
    }
    return false;
  }

  /** Resolves a settled reader command with what its reader builds; a throwing reader fails it. */
  #resolveRead(
    pending: PendingCommand,
    text: string,
    bytes: number | undefined,
    frame: AnswerFrame | undefined,
  ) {
    const reader = pending.reader as AnswerReader;
    try {
      pending.resolve(reader.readAnswer(text, bytes, frame));
    } catch (cause) {
      const error = new BidiError(
        pending.method,
        "unknown error",
        `${pending.method}: the answer reader failed on the answer (${String(cause)})`,
      );
      error.stack = rewriteStackHeader(pending.site, error);
      pending.reject(error);
    }
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
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const [signal, watch] of this.#signals) signal.removeEventListener("abort", watch.listener);
    this.#signals.clear();
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
