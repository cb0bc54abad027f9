/**
 * Files attached to a message: text, the text of a PDF, or an image for a vision model. The
 * add-on's sidebar and `webbrain run --include` read files into these (each realm reads PDFs
 * its own way) and the run puts text into the user's message, marked as the user's file, and
 * images beside it.
 *
 * Invariant: every attachment that reaches a run is within the bounds below; a reader says
 * which bound a file broke (attachmentRefusal), so nothing is cut without the person knowing.
 */
export type Attachment =
  | { kind: "text"; name: string; text: string }
  | { kind: "image"; name: string; mimeType: string; dataBase64: string };

export const MAX_ATTACHMENTS = 4;
/** A plain text file larger than this is more than a model's context can use. */
export const MAX_TEXT_FILE_BYTES = 512 * 1024;
export const MAX_PDF_BYTES = 20 * 1024 * 1024;
/** Characters of text one attachment may add to the message (a PDF's text is cut here). */
export const MAX_ATTACHMENT_CHARS = 60_000;
export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;

/** The message the model reads: the question, then each text attachment, fenced by name. */
export function messageWithAttachments(text: string, attachments: readonly Attachment[]): string {
  const parts = [text];
  for (const attachment of attachments) {
    if (attachment.kind !== "text") continue;
    const name = attachment.name.replace(/"/g, "'");
    parts.push(`<attached_file name="${name}">\n${attachment.text}\n</attached_file>`);
  }
  return parts.join("\n\n");
}

export function isAttachment(value: unknown): value is Attachment {
  const v = value as Partial<Record<string, unknown>> | null;
  if (typeof v !== "object" || v === null || typeof v.name !== "string") return false;
  if (v.kind === "text") return typeof v.text === "string" && v.text.length <= MAX_ATTACHMENT_CHARS;
  return (
    v.kind === "image" &&
    typeof v.dataBase64 === "string" &&
    (IMAGE_TYPES as readonly unknown[]).includes(v.mimeType) &&
    v.dataBase64.length <= Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 4
  );
}

/** Bytes as base64, in chunks (a spread of a whole large file overflows the call stack). */
export function base64Of(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let at = 0; at < bytes.length; at += chunk) {
    binary += String.fromCharCode(...bytes.subarray(at, at + chunk));
  }
  return btoa(binary);
}

export type AttachmentKind = "text" | "pdf" | "image";

const TEXT_NAME =
  /\.(txt|md|markdown|csv|tsv|json|xml|html?|log|ya?ml|ini|toml|js|ts|py|java|c|cpp|h|rs|go|rb|sh|sql)$/i;

/** What a file is by its MIME type (may be "") and name; undefined: not a kind we read. */
export function attachmentKind(name: string, mimeType: string): AttachmentKind | undefined {
  if ((IMAGE_TYPES as readonly string[]).includes(mimeType)) return "image";
  if (mimeType === "application/pdf" || /\.pdf$/i.test(name)) return "pdf";
  if (mimeType.startsWith("text/") || TEXT_NAME.test(name)) return "text";
  return undefined;
}

/** The largest file of a kind a reader takes. */
export function maxAttachmentBytes(kind: AttachmentKind): number {
  return kind === "image" ? MAX_IMAGE_BYTES : kind === "pdf" ? MAX_PDF_BYTES : MAX_TEXT_FILE_BYTES;
}

/** Text as an attachment, cut at MAX_ATTACHMENT_CHARS with a visible mark. */
export function boundedAttachmentText(name: string, text: string): Attachment {
  const cut = text.length > MAX_ATTACHMENT_CHARS;
  const kept = cut ? `${text.slice(0, MAX_ATTACHMENT_CHARS)}\n[…]` : text;
  return { kind: "text", name, text: kept };
}

/**
 * What text extraction needs of a PDF.js document (structural, so the agent imports no PDF.js;
 * the add-on and the runner load different builds of it).
 */
export interface PdfTextDocument {
  numPages: number;
  getPage(number: number): Promise<{ getTextContent(): Promise<{ items: readonly object[] }> }>;
}

/** The document's text, page by page, stopping once MAX_ATTACHMENT_CHARS are read (the rest is cut anyway). */
export async function pdfDocumentText(pdf: PdfTextDocument): Promise<string> {
  const pages: string[] = [];
  let total = 0;
  for (let number = 1; number <= pdf.numPages && total <= MAX_ATTACHMENT_CHARS; number++) {
    const content = await (await pdf.getPage(number)).getTextContent();
    const text = content.items.map((item) => ("str" in item ? String(item.str) : "")).join(" ");
    pages.push(text);
    total += text.length;
  }
  return pages.join("\n\n").trim();
}
