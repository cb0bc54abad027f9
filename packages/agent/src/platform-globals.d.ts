/**
 * The few web-platform globals the agent uses, which both a Firefox background page and
 * Node (22 and later) provide. Declared here (and only here) so the package compiles with neither the DOM
 * nor the Node type libraries, which keeps DOM and `node:` APIs out of reach by construction.
 */

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
  throwIfAborted(): void;
}

declare var AbortSignal: {
  prototype: AbortSignal;
  abort(reason?: unknown): AbortSignal;
  any(signals: AbortSignal[]): AbortSignal;
  timeout(milliseconds: number): AbortSignal;
};

/** Decodes a streamed body (http-fetch.ts). */
declare class TextDecoder {
  constructor(label?: string);
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

interface AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

declare var AbortController: {
  prototype: AbortController;
  new (): AbortController;
};

type TimerHandle = { readonly __timer: unique symbol } | number;
declare function setTimeout(handler: () => void, delayMs?: number): TimerHandle;
declare function clearTimeout(handle: TimerHandle | undefined): void;

interface PlatformFetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  json(): Promise<unknown>;
  text(): Promise<string>;
}

declare function fetch(
  url: string,
  init?: { method?: string; headers?: Record<string, string>; signal?: AbortSignal },
): Promise<PlatformFetchResponse>;
