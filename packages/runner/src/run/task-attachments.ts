/**
 * `webbrain run --include FILE`: the user's files given to the model with the task, by the
 * add-on's rules (the agent's attachments.ts): text as it is, a PDF's text through PDF.js, an
 * image beside the message for a vision model. Each refusal is a UsageError naming the file and
 * the bound it broke, raised before Firefox starts.
 */
import { readFile, stat } from "node:fs/promises";
import { basename, extname, resolve } from "node:path";
import {
  type Attachment,
  attachmentKind,
  base64Of,
  boundedAttachmentText,
  MAX_ATTACHMENTS,
  maxAttachmentBytes,
  pdfDocumentText,
} from "@webbrain/agent";
import { UsageError } from "../errors.js";

/** Node has no MIME types for files; the add-on's image types by their usual extensions. */
const IMAGE_BY_EXTENSION: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
};

const size = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`
    : `${Math.round(bytes / 1024)} KB`;

async function pdfText(bytes: Uint8Array): Promise<string> {
  // The legacy build runs in Node; loaded only when a PDF is given.
  const { getDocument } = await import("pdfjs-dist/legacy/build/pdf.mjs");
  // Errors only (verbosity 0): PDF.js warns on stderr about fonts it does not need for text.
  const task = getDocument({ data: bytes, useSystemFonts: false, verbosity: 0 });
  const pdf = await task.promise;
  try {
    return await pdfDocumentText(pdf);
  } finally {
    await task.destroy();
  }
}

async function readOne(path: string): Promise<Attachment> {
  const full = resolve(path);
  const name = basename(full);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(full);
  } catch (error) {
    throw new UsageError(
      `--include ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code}).`,
    );
  }
  if (!info.isFile()) throw new UsageError(`--include ${path}: not a file.`);
  const kind = attachmentKind(name, IMAGE_BY_EXTENSION[extname(name).toLowerCase()] ?? "");
  if (!kind) throw new UsageError(`--include ${path}: ${name} is not a text, PDF or image file.`);
  const limit = maxAttachmentBytes(kind);
  if (info.size > limit)
    throw new UsageError(
      `--include ${path}: ${name} is ${size(info.size)}; files of this kind may be at most ${size(limit)}.`,
    );
  const bytes = new Uint8Array(await readFile(full));
  if (kind === "image") {
    const mimeType = IMAGE_BY_EXTENSION[extname(name).toLowerCase()] ?? "image/png";
    return { kind: "image", name, mimeType, dataBase64: base64Of(bytes) };
  }
  if (kind === "pdf") {
    let text: string;
    try {
      text = await pdfText(bytes);
    } catch (error) {
      throw new UsageError(
        `--include ${path}: ${name} is not a readable PDF (${(error as Error).message}); check that the file is complete, or save it as PDF again.`,
      );
    }
    if (text === "") throw new UsageError(`--include ${path}: ${name} has no text to read (a scanned PDF?).`);
    return boundedAttachmentText(name, text);
  }
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  return boundedAttachmentText(name, text);
}

/** Every --include file, read and checked. */
export async function readTaskAttachments(paths: readonly string[]): Promise<Attachment[]> {
  if (paths.length > MAX_ATTACHMENTS)
    throw new UsageError(`--include: at most ${MAX_ATTACHMENTS} files per task (got ${paths.length}).`);
  const out: Attachment[] = [];
  for (const path of paths) out.push(await readOne(path));
  return out;
}

/** Images need a model that takes them: said before Firefox starts, not silently dropped. */
export function checkImagesFit(attachments: readonly Attachment[], vision: boolean): void {
  const image = attachments.find((attachment) => attachment.kind === "image");
  if (image && !vision)
    throw new UsageError(
      `--include: ${image.name} is an image, but the model does not take images (vision is off). Pass --vision on for a vision model, or drop the file.`,
    );
}
