/**
 * Screenshots over BiDi: the viewport, or the whole document (`origin: "document"`), as PNG
 * (or a JPEG at a given quality: the small per-step images of `--trace-shots`).
 * The size is read from the PNG header so callers can budget images without decoding them.
 */

import type { Screenshot } from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";

/** Bytes 16..24 of a PNG are the IHDR width and height, big-endian. */
const PNG_IHDR_WIDTH_OFFSET = 16;
const PNG_SIGNATURE = "\x89PNG\r\n\x1a\n";

export function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < PNG_IHDR_WIDTH_OFFSET + 8 || bytes.subarray(0, 8).toString("latin1") !== PNG_SIGNATURE) {
    return undefined;
  }
  return {
    width: bytes.readUInt32BE(PNG_IHDR_WIDTH_OFFSET),
    height: bytes.readUInt32BE(PNG_IHDR_WIDTH_OFFSET + 4),
  };
}

export async function captureScreenshot(
  client: BidiClient,
  context: string,
  full: boolean,
  signal?: AbortSignal,
  jpegQuality?: number,
): Promise<Screenshot> {
  const format =
    jpegQuality === undefined
      ? { type: "image/png" }
      : { type: "image/jpeg", quality: Math.min(1, Math.max(0, jpegQuality)) };
  const { data } = await client.send(
    "browsingContext.captureScreenshot",
    { context, origin: full ? "document" : "viewport", format },
    signal ? { signal } : {},
  );
  if (jpegQuality !== undefined) return { mimeType: "image/jpeg", dataBase64: data };
  const size = pngSize(Buffer.from(data.slice(0, 64), "base64"));
  return { mimeType: "image/png", dataBase64: data, ...(size ?? {}) };
}
