/**
 * Typed helpers over `browsingContext.*`: find, open, navigate and photograph top-level contexts.
 *
 * Invariants: each helper is one or two `send` calls with no hidden state; anything they do not
 * cover stays reachable through `client.send`.
 */
import type * as Bidi from "webdriver-bidi-protocol";
import type { BidiClient, SendOptions } from "./client.js";
import { BidiError } from "./errors.js";

export type ReadinessState = Bidi.BrowsingContext.ReadinessState;

/** Id of the first top-level browsing context (the tab Firefox opened at start). */
export async function getTopLevelContext(client: BidiClient, opts?: SendOptions): Promise<string> {
  const tree = await client.send("browsingContext.getTree", { maxDepth: 0 }, opts);
  const first = tree.contexts[0];
  if (!first) {
    throw new BidiError(
      "browsingContext.getTree",
      "no such frame",
      "browsingContext.getTree: the browser has no top-level context (all tabs closed); create one with createTab().",
    );
  }
  return first.context;
}

export interface CreateTabOptions extends SendOptions {
  /** Open in the background (keeps focus where it is). Default false: the new tab is focused. */
  background?: boolean;
  /** User context (container) id from browser.createUserContext. */
  userContext?: string;
}

/** Opens a new tab and returns its context id. */
export async function createTab(client: BidiClient, opts: CreateTabOptions = {}): Promise<string> {
  const result = await client.send(
    "browsingContext.create",
    {
      type: "tab",
      ...(opts.background !== undefined ? { background: opts.background } : {}),
      ...(opts.userContext ? { userContext: opts.userContext } : {}),
    },
    { timeoutMs: opts.timeoutMs, signal: opts.signal },
  );
  return result.context;
}

/** Closes a top-level context. */
export async function closeContext(client: BidiClient, context: string, opts?: SendOptions): Promise<void> {
  await client.send("browsingContext.close", { context }, opts);
}

/** Navigates and waits until `wait` (default "complete": the load event fired). */
export function navigate(
  client: BidiClient,
  context: string,
  url: string,
  wait: ReadinessState = "complete",
  opts?: SendOptions,
): Promise<Bidi.BrowsingContext.NavigateResult> {
  return client.send("browsingContext.navigate", { context, url, wait }, opts);
}

export interface ScreenshotOptions extends SendOptions {
  /** The whole document instead of the viewport. */
  full?: boolean;
  format?: Bidi.BrowsingContext.ImageFormat;
  clip?: Bidi.BrowsingContext.ClipRectangle;
}

/** Captures a PNG (or `format`) of the viewport, or of the whole page with `full`. */
export async function captureScreenshot(
  client: BidiClient,
  context: string,
  opts: ScreenshotOptions = {},
): Promise<Buffer> {
  const result = await client.send(
    "browsingContext.captureScreenshot",
    {
      context,
      origin: opts.full ? "document" : "viewport",
      ...(opts.format ? { format: opts.format } : {}),
      ...(opts.clip ? { clip: opts.clip } : {}),
    },
    { timeoutMs: opts.timeoutMs, signal: opts.signal },
  );
  return Buffer.from(result.data, "base64");
}
