/**
 * Trusted input through `input.performActions`: pages see these events with isTrusted === true.
 */
import type * as Bidi from "webdriver-bidi-protocol";
import type { BidiClient, SendOptions } from "./client.js";

/** Id of the pointer input source used by `clickAt`. */
const MOUSE_SOURCE_ID = "webbrain-mouse";

/** Sends raw action sequences (see the BiDi spec's input.SourceActions). */
export async function performActions(
  client: BidiClient,
  context: string,
  actions: Bidi.Input.SourceActions[],
  opts?: SendOptions,
): Promise<void> {
  await client.send("input.performActions", { context, actions }, opts);
}

/** Releases pressed keys and buttons, resetting input state for the context. */
export async function releaseActions(client: BidiClient, context: string, opts?: SendOptions): Promise<void> {
  await client.send("input.releaseActions", { context }, opts);
}

export interface ClickOptions extends SendOptions {
  /** 0 left (default), 1 middle, 2 right. */
  button?: number;
  /** Element to offset from: x/y become relative to its centre. */
  origin?: Bidi.Input.ElementOrigin;
}

/** A trusted mouse click at viewport CSS pixel (x, y), or relative to `origin`. */
export function clickAt(client: BidiClient, context: string, x: number, y: number, opts: ClickOptions = {}) {
  const button = opts.button ?? 0;
  return performActions(
    client,
    context,
    [
      {
        type: "pointer",
        id: MOUSE_SOURCE_ID,
        parameters: { pointerType: "mouse" },
        actions: [
          {
            type: "pointerMove",
            x: Math.round(x),
            y: Math.round(y),
            ...(opts.origin ? { origin: opts.origin } : {}),
          },
          { type: "pointerDown", button },
          { type: "pointerUp", button },
        ],
      },
    ],
    { timeoutMs: opts.timeoutMs, signal: opts.signal },
  );
}
