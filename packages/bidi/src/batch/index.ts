/**
 * `@webbrain/bidi/batch`: the raw-frame batch engine. Browser-agnostic; the
 * connection is whatever implements `BatchTransport`, and files go through
 * `SpoolFs`. See batch-session.ts for the ordering and failure rules.
 */

export type { BatchRequestShape } from "./batch-request-check.js";
export { checkBatchRequest } from "./batch-request-check.js";
export type { BatchRunRequest, BatchRunResult, BatchSessionOptions } from "./batch-session.js";
export { BatchSession } from "./batch-session.js";
export * from "./budgets.js";
export type { RelayedFrame } from "./client-transport.js";
export { clientTransport, sendAnswerFrame } from "./client-transport.js";
export { BatchInputError, FrameAbortedError, FrameTimeoutError } from "./errors.js";
export { EventHistory, EventWait, summarizeParams } from "./event-history.js";
export { FrameIdLedger, isValidFrameId } from "./frame-ids.js";
export { jsonBytesBound } from "./json-size-bound.js";
export type { AssembledPayload, BatchPayload, PayloadParts, TruncationMarker } from "./payload.js";
export { assemblePayload } from "./payload.js";
export type { ReferenceTarget } from "./references.js";
export { ReferenceResolutionError, resolveReferences, resolveReferencesIfAnswered } from "./references.js";
export type { SpoolFs, SpoolStoreOptions } from "./spool.js";
export { nodeSpoolFs, SpoolError, SpoolStore } from "./spool.js";
export type * from "./types.js";
export { answerWireBytes, answerWireText } from "./wire-answers.js";
