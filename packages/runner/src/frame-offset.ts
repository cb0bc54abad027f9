/**
 * Where a frame's viewport sits inside the top-level viewport, so points a page script
 * computed inside a cross-origin frame can be pressed with top-level pointer actions.
 *
 * The parent document cannot read a cross-origin child, but it can name its iframes'
 * windows: BiDi serializes `iframe.contentWindow` as a window value carrying the child's
 * context id, which is how the right <iframe> element is found without guessing by URL.
 */
import type { BidiClient } from "@webbrain/bidi";
import type * as Bidi from "webdriver-bidi-protocol";
import { PAGE_SANDBOX } from "./page-script-channel.js";
import type { FrameInfo } from "./tab-contexts.js";
import type { ViewportPoint } from "./trusted-input.js";

/** Per iframe of a document: its window, and its content box's top-left in that viewport. */
const LIST_FRAME_BOXES = `function () {
  return [...document.querySelectorAll("iframe, frame")].map((frame) => {
    const rect = frame.getBoundingClientRect();
    const style = getComputedStyle(frame);
    return [
      frame.contentWindow,
      rect.left + frame.clientLeft + parseFloat(style.paddingLeft || "0"),
      rect.top + frame.clientTop + parseFloat(style.paddingTop || "0"),
    ];
  });
}`;

export class FrameNotFoundError extends Error {
  override readonly name = "FrameNotFoundError";
}

/** Offset of `context`'s viewport in the top-level viewport; {0,0} for the tab itself. */
export async function frameOffset(
  client: BidiClient,
  frames: readonly FrameInfo[],
  context: string,
): Promise<ViewportPoint> {
  const byId = new Map(frames.map((f) => [f.context, f]));
  let offset = { x: 0, y: 0 };
  let current = byId.get(context);
  while (current?.parent) {
    const parent = current.parent;
    const result = await client.send("script.callFunction", {
      functionDeclaration: LIST_FRAME_BOXES,
      awaitPromise: false,
      target: { context: parent, sandbox: PAGE_SANDBOX },
      serializationOptions: { maxObjectDepth: 2 },
      resultOwnership: "none",
    });
    const box = result.type === "success" ? findBox(result.result, current.context) : undefined;
    if (!box)
      throw new FrameNotFoundError(`Could not find the <iframe> of frame ${current.context} in its parent.`);
    offset = { x: offset.x + box.x, y: offset.y + box.y };
    current = byId.get(parent);
  }
  return offset;
}

function findBox(value: Bidi.Script.RemoteValue, context: string): ViewportPoint | undefined {
  if (value.type !== "array") return undefined;
  for (const entry of value.value ?? []) {
    if (entry.type !== "array") continue;
    const [win, x, y] = entry.value ?? [];
    if (
      win?.type === "window" &&
      win.value.context === context &&
      x?.type === "number" &&
      y?.type === "number"
    ) {
      if (typeof x.value === "number" && typeof y.value === "number") return { x: x.value, y: y.value };
    }
  }
  return undefined;
}
