/**
 * Errors of the batch engine. Transports reject `sendFrame` with the first two
 * so the engine can tell a timeout and an abort from a broken connection;
 * `BatchInputError` means the call was refused before any frame was sent.
 */

export class FrameTimeoutError extends Error {
  override readonly name = "FrameTimeoutError";
  constructor(
    readonly frameId: number,
    readonly timeoutMs: number,
  ) {
    super(`No response to frame ${frameId} within ${timeoutMs} ms.`);
  }
}

export class FrameAbortedError extends Error {
  override readonly name = "FrameAbortedError";
  constructor(readonly frameId: number) {
    super(`Frame ${frameId} was abandoned because the call was aborted.`);
  }
}

export class BatchInputError extends Error {
  override readonly name = "BatchInputError";
}
