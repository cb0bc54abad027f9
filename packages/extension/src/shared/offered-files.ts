/**
 * Files the person offers for the page in the sidebar ("For the page"), for upload_file:
 * the bounds and names both the sidebar and the background page check. The model sees a file's
 * name and size, never its bytes; `upload_file {path: NAME}` sends it after the permission gate.
 */

/** Largest file upload_file puts into a page (it crosses to the content script as base64), bytes. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
/** Files offered at once in one tab's chat (each held in the background page's memory). */
export const MAX_OFFERED_FILES = 4;
/** Longest offered file name kept (a name longer than this is cut). */
const MAX_NAME_CHARS = 120;

/** What the sidebar shows and the model is told of an offered file. */
export interface OfferedFileSummary {
  name: string;
  bytes: number;
  mime: string;
}

/**
 * The name a file is offered under: its last path segment, control characters and quotes
 * removed (it is shown to the model and in prompts), cut to MAX_NAME_CHARS; "file" if nothing is left.
 */
export function offeredFileName(raw: string): string {
  const base = raw.split(/[/\\]/).at(-1) ?? "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
  const clean = base.replace(/[\u0000-\u001f\u007f"<>]/g, "").trim();
  return clean.slice(0, MAX_NAME_CHARS) || "file";
}

/** Sizes as a person reads them: bytes, KB, MB. */
export function readableSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

/**
 * The lines added to the person's message while files are offered: names and sizes only, and
 * how to send one. The names are the person's own file names, quoted.
 */
export function offeredFilesNote(files: readonly OfferedFileSummary[]): string {
  if (files.length === 0) return "";
  const list = files.map((file) => `- "${file.name}" (${readableSize(file.bytes)}, ${file.mime})`).join("\n");
  return `\n\n<offered_files>\nThe user offered these files for upload to the page; upload_file {path: "NAME", ref_id} puts one into a file input (the user is asked first). Their contents are not shown to you.\n${list}\n</offered_files>`;
}
