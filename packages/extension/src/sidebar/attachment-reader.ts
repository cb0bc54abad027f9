/**
 * Reads a file the person attached into an Attachment, within the bounds of attachments.ts:
 * text as it is, a PDF's text through PDF.js (its worker ships with the add-on), an image as
 * base64 for a vision model. Every refusal is an AttachmentError whose message names the file
 * and the bound, in the user's language.
 */
import { GlobalWorkerOptions, getDocument } from "pdfjs-dist";
import {
  type Attachment,
  attachmentKind,
  base64Of,
  boundedAttachmentText,
  MAX_IMAGE_BYTES,
  MAX_PDF_BYTES,
  MAX_TEXT_FILE_BYTES,
  pdfDocumentText,
} from "../shared/attachments.js";
import { t } from "../shared/i18n.js";

export class AttachmentError extends Error {
  override name = "AttachmentError";
}

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
const kilobytes = (bytes: number) => `${Math.round(bytes / 1024)} KB`;

async function pdfText(file: File): Promise<string> {
  GlobalWorkerOptions.workerSrc = browser.runtime.getURL("pdf.worker.min.mjs");
  const task = getDocument({ data: new Uint8Array(await file.arrayBuffer()) });
  const pdf = await task.promise;
  try {
    return await pdfDocumentText(pdf);
  } finally {
    // Ends the document and its worker.
    await task.destroy();
  }
}

export async function readAttachment(file: File, vision: boolean): Promise<Attachment> {
  const kind = attachmentKind(file.name, file.type);
  if (kind === "image") {
    if (!vision) throw new AttachmentError(t("attachImageNeedsVision", file.name));
    if (file.size > MAX_IMAGE_BYTES)
      throw new AttachmentError(
        t("attachTooLarge", file.name, megabytes(file.size), megabytes(MAX_IMAGE_BYTES)),
      );
    return {
      kind: "image",
      name: file.name,
      mimeType: file.type,
      dataBase64: base64Of(new Uint8Array(await file.arrayBuffer())),
    };
  }
  if (kind === "pdf") {
    if (file.size > MAX_PDF_BYTES)
      throw new AttachmentError(
        t("attachTooLarge", file.name, megabytes(file.size), megabytes(MAX_PDF_BYTES)),
      );
    let text: string;
    try {
      text = await pdfText(file);
    } catch (error) {
      throw new AttachmentError(t("attachPdfUnreadable", file.name, (error as Error).message));
    }
    if (text === "") throw new AttachmentError(t("attachPdfNoText", file.name));
    return boundedAttachmentText(file.name, text);
  }
  if (kind === "text") {
    if (file.size > MAX_TEXT_FILE_BYTES)
      throw new AttachmentError(
        t("attachTooLarge", file.name, kilobytes(file.size), kilobytes(MAX_TEXT_FILE_BYTES)),
      );
    return boundedAttachmentText(file.name, await file.text());
  }
  throw new AttachmentError(t("attachUnsupported", file.name));
}
