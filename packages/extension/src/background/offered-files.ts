/**
 * The files each tab's chat offered for the page (sidebar "For the page"), held in the
 * persistent background page's memory, never in storage: they go when the person removes them,
 * clears the chat or closes the tab, and with the browser session.
 *
 * Invariants:
 * - At most MAX_OFFERED_FILES per tab, each at most MAX_UPLOAD_BYTES (the downloaded-file path's
 *   cap); names are unique per tab (offering a name again replaces that file).
 * - Only the sidebar offers files (runtime messages from the add-on's own pages); the model can
 *   name an offered file, never add one.
 */
import { t } from "../shared/i18n.js";
import {
  MAX_OFFERED_FILES,
  MAX_UPLOAD_BYTES,
  type OfferedFileSummary,
  offeredFileName,
  readableSize,
} from "../shared/offered-files.js";
import type { OfferedFileShelf } from "./webext-browser-port.js";

export interface OfferedFile extends OfferedFileSummary {
  data: Uint8Array;
}

export class OfferedFileError extends Error {
  override name = "OfferedFileError";
}

function summary(file: OfferedFile): OfferedFileSummary {
  return { name: file.name, bytes: file.bytes, mime: file.mime };
}

export class OfferedFiles {
  readonly #byTab = new Map<number, OfferedFile[]>();

  /** Offers a file for the tab's page; answers the tab's list. Throws OfferedFileError with what to do. */
  offer(tabId: number, rawName: string, mime: string, data: ArrayBuffer): OfferedFileSummary[] {
    const name = offeredFileName(rawName);
    if (data.byteLength > MAX_UPLOAD_BYTES)
      throw new OfferedFileError(
        t("offerTooLarge", name, readableSize(data.byteLength), readableSize(MAX_UPLOAD_BYTES)),
      );
    const others = (this.#byTab.get(tabId) ?? []).filter((file) => file.name !== name);
    if (others.length >= MAX_OFFERED_FILES) throw new OfferedFileError(t("offerTooMany", MAX_OFFERED_FILES));
    const type = /^[\w.+-]+\/[\w.+-]+$/.test(mime) ? mime : "application/octet-stream";
    others.push({ name, mime: type, bytes: data.byteLength, data: new Uint8Array(data.slice(0)) });
    this.#byTab.set(tabId, others);
    return this.list(tabId);
  }

  withdraw(tabId: number, name: string): OfferedFileSummary[] {
    const left = (this.#byTab.get(tabId) ?? []).filter((file) => file.name !== name);
    if (left.length > 0) this.#byTab.set(tabId, left);
    else this.#byTab.delete(tabId);
    return this.list(tabId);
  }

  list(tabId: number): OfferedFileSummary[] {
    return (this.#byTab.get(tabId) ?? []).map(summary);
  }

  /** The offered file of that name (exactly as listed), if the tab's chat offered one. */
  find(tabId: number, name: string): OfferedFile | undefined {
    return this.#byTab.get(tabId)?.find((file) => file.name === name);
  }

  /** The tab's files as upload_file reads them (webext-browser-port.ts `offering`). */
  shelf(tabId: number): OfferedFileShelf {
    return {
      find: (name) => this.find(tabId, name),
      names: () => this.list(tabId).map((file) => file.name),
    };
  }

  forget(tabId: number): void {
    this.#byTab.delete(tabId);
  }
}
