/**
 * upload_file in the add-on: puts a file the background page fetched into an
 * `<input type="file">` the way a drop would, through `DataTransfer`, then fires `input` and
 * `change` as a file picker does. Add-ons cannot open the file picker or read local paths, so the
 * bytes always come from the background page (a file the run downloaded).
 */

import { type DropRealm, dropFileOnElement } from "@webbrain/page/file-drop";
import type { AttachFileMessage } from "./content-messages.js";
import { lookupElement } from "./element-lookup.js";

/** Firefox's content-script helper: copies a value into another realm. */
declare function cloneInto<T>(value: T, target: object, options?: { wrapReflectors?: boolean }): T;

function decodeBase64(data: string): Uint8Array<ArrayBuffer> {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export async function attachFile(message: AttachFileMessage): Promise<Record<string, unknown>> {
  if (message.drop === true) {
    const zone = await lookupElement(message.target, "*", "an element");
    if ("error" in zone) return { success: false, error: zone.error };
    // A File and DataTransfer made in the content script's realm reach the page's drop listener
    // with no files (measured: "drop without a file"), so they are made with the page's own
    // constructors (Xray-waived, arguments cloned in); the event itself is the content script's
    // (the page's DragEvent refuses an init dictionary from here).
    const page = (window as unknown as { wrappedJSObject: Omit<DropRealm, "clone"> }).wrappedJSObject;
    const realm: DropRealm = {
      File: page.File,
      DataTransfer: page.DataTransfer,
      DragEvent,
      clone: (value) => cloneInto(value, page, { wrapReflectors: true }),
    };
    return { ...dropFileOnElement(zone.element, message.dataBase64, message.name, message.mime, realm) };
  }
  const found = await lookupElement(message.target, 'input[type="file" i]', 'an <input type="file">');
  if ("error" in found) return { success: false, error: found.error };
  const input = found.element as HTMLInputElement;
  if (input.disabled)
    return { success: false, error: "That file input is disabled; the page does not accept a file now." };
  const file = new File([decodeBase64(message.dataBase64)], message.name, { type: message.mime });
  const transfer = new DataTransfer();
  transfer.items.add(file);
  input.files = transfer.files;
  input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  input.dispatchEvent(new Event("change", { bubbles: true }));
  return { success: true, uploaded: message.name, bytes: file.size, files: input.files?.length ?? 0 };
}
