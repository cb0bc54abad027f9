/**
 * One browser's batch engine: sends caller-written frames in order, follows
 * references, waits for events, keeps every budget, and builds the payload.
 *
 * Invariants:
 * - frames go out one at a time, in the order given: a frame is sent only after
 *   the one before it answered (references need that, and so do callers that
 *   navigate, then act);
 * - a frame id is claimed before its frame is sent and never handed out again
 *   for this session's life (see FrameIdLedger);
 * - the first frame that fails (error response, timeout, reference, budget,
 *   spool) stops the batch: the frames after it are reported as skipped and
 *   are not sent, and the wait is skipped. A failed frame means the state the
 *   later frames were written for does not hold, so sending them would act on
 *   a page the caller did not expect;
 * - a wait sees only events that arrive after the call began; its timeout
 *   counts from the moment the last frame answered;
 * - work that does not change what is sent is done while a frame is on the
 *   wire: the previous frame's report (and the session metadata's JSON) is
 *   written then, and the next frame's
 *   references are resolved then when they only reach frames that answered
 *   (the result is the same as resolving them in the frame's turn);
 * - results that do not fit inline are spooled before `run` returns; a failed
 *   spool write is a frame error, so no report points at a missing file.
 */

import { checkBatchRequest } from "./batch-request-check.js";
import {
  DEFAULT_FRAME_TIMEOUT_MS,
  MAX_INLINE_RESPONSE_BYTES,
  MAX_INLINE_RESPONSES_BYTES,
  MAX_REQUEST_FRAME_BYTES,
  TRUNCATED_MESSAGE_CHARS,
  utf8Bytes,
} from "./budgets.js";
import { BatchInputError, FrameAbortedError, FrameTimeoutError } from "./errors.js";
import { EventHistory, type EventWait } from "./event-history.js";
import { FrameIdLedger, isValidFrameId } from "./frame-ids.js";
import { jsonBytesBound } from "./json-size-bound.js";
import { type AssembledPayload, assemblePayload } from "./payload.js";
import {
  ReferenceResolutionError,
  type ReferenceTarget,
  resolveReferences,
  resolveReferencesIfAnswered,
} from "./references.js";
import { SpoolError, type SpoolStore } from "./spool.js";
import type {
  BatchCounts,
  BatchFrameInput,
  BatchTransport,
  FrameFailure,
  FrameReport,
  JsonObject,
  JsonValue,
  OutgoingFrame,
  ResponseFrame,
  WaitReport,
  WaitRequest,
} from "./types.js";

/** Method names are echoed back; a hostile or broken one must not eat the payload. */
const MAX_ECHOED_METHOD_CHARS = 256;
/** Messages the engine writes are short; this caps any text they quote. */
const MAX_FAILURE_MESSAGE_CHARS = 1024;

export interface BatchRunRequest {
  frames: readonly BatchFrameInput[];
  wait?: WaitRequest;
  frameTimeoutMs?: number;
  signal?: AbortSignal;
  /** Metadata shown under `session` in the payload (browser, launch options, spool use). */
  sessionMetadata?: JsonObject;
}

export interface BatchRunResult extends AssembledPayload {
  counts: BatchCounts;
}

export interface BatchSessionOptions {
  transport: BatchTransport;
  spool: SpoolStore;
  /** Ids the connection already used; they are never handed out. */
  reservedIds?: Iterable<number>;
  /** Distinguishes spool file names of successive browsers in one Pi session. */
  spoolPrefix?: string;
  now?: () => number;
}

/**
 * The frame reports of one call with the serialized form of each and its UTF-8 size: an inline
 * response is serialized (or taken from the wire) once and reused, and its size never counted twice.
 */
class FrameReports {
  readonly reports: FrameReport[] = [];
  readonly texts: string[] = [];
  readonly bytes: number[] = [];
  #deferred: InlineAnswer | undefined;

  add(report: FrameReport, text?: string, bytes?: number): void {
    this.flush();
    this.reports.push(report);
    const reportText = text ?? JSON.stringify(report);
    this.texts.push(reportText);
    this.bytes.push(bytes ?? utf8Bytes(reportText));
  }

  /** The report of an answer shown inline, around its already serialized text. */
  addInline(answer: InlineAnswer): void {
    const { id, method, status, response, text, bytes } = answer;
    const head = inlineReportHead(id, method, status);
    // Spelled out per status: FrameReport is a union on it.
    const report: FrameReport =
      status === "ok" ? { id, method, status: "ok", response } : { id, method, status: "error", response };
    this.add(report, `${head}${text}}`, utf8Bytes(head) + bytes + 1);
  }

  /**
   * Like addInline, but written at the next `flush` or `add`, so that the engine can write it
   * while the next frame is on the wire. Reports keep their order either way.
   */
  defer(answer: InlineAnswer): void {
    this.flush();
    this.#deferred = answer;
  }

  flush(): void {
    const answer = this.#deferred;
    if (answer === undefined) return;
    this.#deferred = undefined;
    this.addInline(answer);
  }
}

/** An answer shown verbatim in the payload: its wire text and that text's UTF-8 size. */
interface InlineAnswer {
  id: number;
  method: string;
  status: "ok" | "error";
  response: ResponseFrame;
  text: string;
  bytes: number;
}

export class BatchSession {
  readonly ledger = new FrameIdLedger();
  readonly history: EventHistory;
  readonly #transport: BatchTransport;
  readonly #spool: SpoolStore;
  readonly #spoolPrefix: string;
  readonly #detachEvents: () => void;
  #running = false;

  constructor(options: BatchSessionOptions) {
    this.#transport = options.transport;
    this.#spool = options.spool;
    this.#spoolPrefix = options.spoolPrefix ?? "";
    this.history = new EventHistory(options.now);
    if (options.reservedIds) this.ledger.reserve(options.reservedIds);
    this.#detachEvents = this.#transport.onEvent((event) => this.history.record(event));
  }

  /** Stops recording events. The transport itself belongs to the caller. */
  dispose(): void {
    this.#detachEvents();
  }

  async run(request: BatchRunRequest): Promise<BatchRunResult> {
    checkBatchRequest(request);
    if (this.#running)
      throw new BatchInputError("Another batch is still running on this browser; wait for it to finish.");
    this.#running = true;
    const wait = request.wait ? this.history.startWait(request.wait) : undefined;
    try {
      return await this.#run(request, wait);
    } finally {
      wait?.cancel();
      this.#running = false;
    }
  }

  async #run(request: BatchRunRequest, wait: EventWait | undefined): Promise<BatchRunResult> {
    const timeoutMs = request.frameTimeoutMs ?? DEFAULT_FRAME_TIMEOUT_MS;
    // Automatic ids avoid the ids other frames of this call give; only needed when one has none.
    const explicitIds = new Set<number>();
    if (request.frames.some((frame) => frame.id === undefined)) {
      for (const frame of request.frames) {
        if (isValidFrameId(frame.id) && !this.ledger.has(frame.id)) explicitIds.add(frame.id);
      }
    }
    const targets = new Map<number, ReferenceTarget>();
    const reports = new FrameReports();
    // The same options object for every frame of the call.
    const sendOptions = { timeoutMs, ...(request.signal ? { signal: request.signal } : {}) };
    const counts: BatchCounts = { ok: 0, failed: 0, skipped: 0, waitTimedOut: false };
    let inlineBytes = 0;
    let stopReason: string | undefined;

    // The next frame's params, resolved while the frame before it was on the wire (see resolveAhead).
    let ahead: ResolvedAhead | undefined;
    // The session metadata's JSON, written while the first frame is on the wire.
    let sessionText: string | undefined;
    for (let index = 0; index < request.frames.length; index += 1) {
      const input = request.frames[index] as BatchFrameInput;
      const method = echoMethod(input.method);
      if (stopReason === undefined && request.signal?.aborted)
        stopReason = "the call was aborted before this frame";
      if (stopReason !== undefined) {
        reports.add({ id: input.id ?? null, method, status: "skipped", reason: stopReason });
        counts.skipped += 1;
        continue;
      }
      // Checks and references first (no await), then the round trip itself: one await per frame.
      let outcome: { frame: OutgoingFrame } | { id: number; response: ResponseFrame } | FrameFailureOutcome =
        this.#prepare(input, explicitIds, targets, ahead?.input === input ? ahead : undefined);
      ahead = undefined;
      if ("frame" in outcome) {
        const frame = outcome.frame;
        try {
          const answer = this.#transport.sendFrame(frame, sendOptions);
          // While this frame is on the wire: write the previous frame's report, and resolve the
          // next frame's params if they do not wait on this frame's answer.
          reports.flush();
          sessionText ??= JSON.stringify(request.sessionMetadata ?? {});
          const next = request.frames[index + 1];
          if (next !== undefined) ahead = resolveAhead(next, targets);
          outcome = { id: frame.id, response: await answer };
        } catch (error) {
          outcome = { id: frame.id, failure: sendFailure(error, frame.id, method, timeoutMs) };
        }
      }
      if ("failure" in outcome) {
        if (outcome.id !== null) targets.set(outcome.id, { status: "failed" });
        reports.add({ id: outcome.id, method, status: "error", error: outcome.failure });
        counts.failed += 1;
        stopReason = `frame ${outcome.id ?? "without a valid id"} (${method}) failed before it`;
        continue;
      }
      const { id, response } = outcome;
      const isSuccess = response.type === "success";
      targets.set(id, isSuccess ? { status: "ok", response } : { status: "failed" });
      // The wire text and its size when the transport kept them: serializing a screenshot again, or
      // counting its bytes, costs more than the rest of the frame's work.
      const wireText = this.#transport.responseText?.(response);
      const text = wireText ?? JSON.stringify(response);
      const bytes =
        (wireText === undefined ? undefined : this.#transport.responseBytes?.(response)) ?? utf8Bytes(text);
      const fitsInline =
        bytes <= MAX_INLINE_RESPONSE_BYTES && inlineBytes + bytes <= MAX_INLINE_RESPONSES_BYTES;
      if (isSuccess) {
        if (fitsInline) {
          inlineBytes += bytes;
          reports.defer({ id, method, status: "ok", response, text, bytes });
          counts.ok += 1;
          continue;
        }
        try {
          const spooled = await this.#spool.write(
            `${this.#spoolPrefix}frame-${id}.json`,
            text,
            `verbatim response of ${bytes} bytes, too large to return inline (limit ${MAX_INLINE_RESPONSE_BYTES} bytes per response, ${MAX_INLINE_RESPONSES_BYTES} per call); read the file for the result`,
          );
          reports.add({ id, method, status: "ok", spooled });
          counts.ok += 1;
        } catch (error) {
          if (!(error instanceof SpoolError)) throw error;
          targets.set(id, { status: "failed" });
          reports.add({ id, method, status: "error", error: failure("spool", error.message) });
          counts.failed += 1;
          stopReason = `frame ${id} (${method}) failed before it`;
        }
        continue;
      }
      if (fitsInline) {
        inlineBytes += bytes;
        reports.addInline({ id, method, status: "error", response, text, bytes });
      } else {
        const message = typeof response.message === "string" ? response.message : "";
        reports.add({
          id,
          method,
          status: "error",
          error: failure(
            "response-too-large",
            `Error response of ${bytes} bytes left out for size; error=${String(response.error)}; message starts: ${message.slice(0, TRUNCATED_MESSAGE_CHARS)}`,
          ),
        });
      }
      counts.failed += 1;
      stopReason = `frame ${id} (${method}) failed before it`;
    }

    reports.flush();
    const waitReport =
      wait && request.wait ? await settleWait(wait, request.wait, stopReason, request.signal) : undefined;
    if (waitReport?.status === "timeout") counts.waitTimedOut = true;
    const shownInWait = new Set(
      waitReport && "matched" in waitReport ? waitReport.matched.map((e) => e.seq) : [],
    );
    const { events, lost } = this.history.takeUndelivered();
    const assembled = assemblePayload({
      session: request.sessionMetadata ?? {},
      ...(sessionText !== undefined ? { sessionText } : {}),
      frames: reports.reports,
      frameTexts: reports.texts,
      frameBytes: reports.bytes,
      ...(waitReport ? { wait: waitReport } : {}),
      events: events.filter((event) => !shownInWait.has(event.seq)),
      lostEvents: lost,
    });
    return { ...assembled, counts };
  }

  /**
   * Claims the frame's id and builds what goes on the wire, or says why the frame fails. The
   * checks run in this order (id, method, references, size); `ahead`, when given, holds this
   * frame's params already resolved, and only saves work.
   */
  #prepare(
    input: BatchFrameInput,
    explicitIds: ReadonlySet<number>,
    targets: ReadonlyMap<number, ReferenceTarget>,
    ahead: ResolvedAhead | undefined,
  ): { frame: OutgoingFrame } | FrameFailureOutcome {
    let id: number;
    if (input.id === undefined) {
      id = this.ledger.nextFree(explicitIds);
      this.ledger.claim(id);
    } else if (!isValidFrameId(input.id)) {
      return {
        id: null,
        failure: failure(
          "invalid-frame",
          `Frame id ${String(input.id)} is not a non-negative integer; omit id to get one.`,
        ),
      };
    } else if (!this.ledger.claim(input.id)) {
      return {
        id: null,
        failure: failure(
          "id-reused",
          `Frame id ${input.id} was already used in this browser's life (ids are never reused, even after a timeout); omit id to get a fresh one.`,
        ),
      };
    } else {
      id = input.id;
    }
    if (typeof input.method !== "string" || input.method.length === 0) {
      return {
        id,
        failure: failure(
          "invalid-frame",
          'Frame has no method; write e.g. {method: "browsingContext.getTree"}.',
        ),
      };
    }
    let params: JsonObject;
    if (ahead) {
      params = ahead.params;
    } else {
      try {
        params = resolveReferences(input.params ?? {}, targets);
      } catch (error) {
        if (error instanceof ReferenceResolutionError)
          return { id, failure: failure("reference", error.message) };
        throw error;
      }
    }
    const frame: OutgoingFrame = { id, method: input.method, params };
    // Nearly every frame is far below the limit, and a bound on its size says so without
    // serializing it (the client serializes it to send it); only a frame near the limit is measured.
    const withinBound = ahead ? ahead.withinBound : frameWithinBound(frame);
    const frameBytes = withinBound ? 0 : utf8Bytes(JSON.stringify(frame));
    if (frameBytes > MAX_REQUEST_FRAME_BYTES) {
      return {
        id,
        failure: failure(
          "request-too-large",
          `Frame ${id} is ${frameBytes} bytes of UTF-8 JSON, over the ${MAX_REQUEST_FRAME_BYTES}-byte limit per request frame; send less data per frame.`,
        ),
      };
    }
    return { frame };
  }
}

/** A frame's params resolved before its turn, and whether the frame is surely within the size limit. */
interface ResolvedAhead {
  input: BatchFrameInput;
  params: JsonObject;
  withinBound: boolean;
}

/**
 * Resolves a frame's references before its turn, while the frame before it is on the wire, so
 * that work is not added to the batch's time. Only references to frames that already answered
 * can be resolved then; anything else (a reference to the frame in flight, a bad frame) returns
 * undefined and the frame is resolved in its turn as usual, with the same outcome as without
 * this step. Side-effect free: no id is claimed, nothing is reported.
 */
function resolveAhead(
  input: BatchFrameInput,
  targets: ReadonlyMap<number, ReferenceTarget>,
): ResolvedAhead | undefined {
  if (typeof input.method !== "string" || input.method.length === 0) return undefined;
  try {
    // Usually the next frame reads the answer of the frame in flight: no error for that (the
    // stack capture of one costs more than the rest of a frame's engine work).
    const params = resolveReferencesIfAnswered(input.params ?? {}, targets);
    if (params === undefined) return undefined;
    // The bound counts any id as the longest number, so it holds for whatever id the frame gets.
    return { input, params, withinBound: frameWithinBound({ id: 0, method: input.method, params }) };
  } catch {
    return undefined;
  }
}

/** True when a bound on the frame's JSON size is within the request limit (no serializing). */
function frameWithinBound(frame: OutgoingFrame): boolean {
  return jsonBytesBound(frame, MAX_REQUEST_FRAME_BYTES) <= MAX_REQUEST_FRAME_BYTES;
}

/** A frame that failed before or during its round trip; `id` is null when it had no valid id. */
type FrameFailureOutcome = { id: number | null; failure: FrameFailure };

/** The frame failure for a `sendFrame` rejection. */
function sendFailure(error: unknown, id: number, method: string, timeoutMs: number): FrameFailure {
  if (error instanceof FrameTimeoutError) {
    return failure(
      "timeout",
      `No response to frame ${id} (${method}) within ${timeoutMs} ms; its id stays used. Raise timeoutMs or check what the command waits for.`,
    );
  }
  if (error instanceof FrameAbortedError)
    return failure("aborted", "The call was aborted while this frame was in flight.");
  return failure("transport", `The connection failed while sending frame ${id}: ${describe(error)}`);
}

async function settleWait(
  wait: EventWait,
  request: WaitRequest,
  stopReason: string | undefined,
  signal: AbortSignal | undefined,
): Promise<WaitReport> {
  if (stopReason !== undefined) {
    wait.cancel();
    return {
      status: "skipped",
      reason: `the wait was skipped because ${stopReason.replace(/ before it$/, "")}`,
      missing: [...wait.missing],
    };
  }
  if (!wait.satisfied) {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      wait.done,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, request.timeoutMs);
        onAbort = resolve;
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
  wait.cancel();
  if (wait.satisfied) return { status: "matched", matched: [...wait.matched] };
  if (signal?.aborted)
    return { status: "skipped", reason: "the call was aborted during the wait", missing: [...wait.missing] };
  return {
    status: "timeout",
    matched: [...wait.matched],
    missing: [...wait.missing],
    timeoutMs: request.timeoutMs,
  };
}

/**
 * The JSON of `{id, method, status, response}` up to the response: followed by an already
 * serialized response and `}`, it is the report's text.
 */
function inlineReportHead(id: number, method: string, status: "ok" | "error"): string {
  return `{"id":${id},"method":${JSON.stringify(method)},"status":"${status}","response":`;
}

function failure(kind: FrameFailure["kind"], message: string): FrameFailure {
  return {
    kind,
    message:
      message.length > MAX_FAILURE_MESSAGE_CHARS
        ? `${message.slice(0, MAX_FAILURE_MESSAGE_CHARS)}…`
        : message,
  };
}

function echoMethod(method: unknown): string {
  const text = typeof method === "string" ? method : String(method as JsonValue);
  return text.length > MAX_ECHOED_METHOD_CHARS ? `${text.slice(0, MAX_ECHOED_METHOD_CHARS)}…` : text;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
