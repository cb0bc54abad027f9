/** The attachment rules live in the agent core, shared with `webbrain run --include`. */
export {
  type Attachment,
  type AttachmentKind,
  attachmentKind,
  base64Of,
  boundedAttachmentText,
  IMAGE_TYPES,
  isAttachment,
  MAX_ATTACHMENT_CHARS,
  MAX_ATTACHMENTS,
  MAX_IMAGE_BYTES,
  MAX_PDF_BYTES,
  MAX_TEXT_FILE_BYTES,
  maxAttachmentBytes,
  messageWithAttachments,
  pdfDocumentText,
} from "@webbrain/agent";
