/**
 * upload_file {drop: true}: a file dropped on a page's drop zone the way a person's drag from the
 * desktop arrives (dragenter, dragover, drop, each carrying a DataTransfer with the file), for
 * uploaders that read `event.dataTransfer.files` and have no file input. Both ports dispatch it
 * in the page: the add-on from its content script, the runner in its sandbox (WebDriver BiDi's
 * input.performActions drags the pointer but cannot carry files, so the events are synthetic on
 * both ports). Self-contained on purpose: the runner sends this function's source to Firefox.
 */
// Module-local declarations of the DOM globals used: the runner compiles this file without the
// DOM library (it only sends the function's source to Firefox).
declare const File: new (
  parts: Uint8Array[],
  name: string,
  init: { type: string },
) => { readonly size: number };
declare const DataTransfer: new () => { readonly items: { add(file: object): unknown } };
declare const DragEvent: new (type: string, init: Record<string, unknown>) => object;
declare function atob(data: string): string;

/** What the function needs of the element: any DOM Element is one. */
export interface DropZone {
  readonly localName: string;
  getBoundingClientRect(): { left: number; top: number; width: number; height: number };
  dispatchEvent(event: never): boolean;
}

export interface DropOutcome {
  success: boolean;
  error?: string;
  uploaded?: string;
  bytes?: number;
  dropped?: true;
}

/** The constructors the drop is made with: the page's own, where the caller's would be hidden. */
export interface DropRealm {
  File: typeof File;
  DataTransfer: typeof DataTransfer;
  DragEvent: typeof DragEvent;
  /** Copies an argument into that realm (a content script's cloneInto). */
  clone<T>(value: T): T;
}

export function dropFileOnElement(
  el: DropZone,
  dataBase64: string,
  name: string,
  mime: string,
  realm?: DropRealm,
): DropOutcome {
  const {
    File: FileOf,
    DataTransfer: TransferOf,
    DragEvent: DragOf,
    clone,
  } = realm ?? { File, DataTransfer, DragEvent, clone: <T>(value: T) => value };
  const binary = atob(dataBase64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const file = new FileOf(clone([bytes]), name, clone({ type: mime }));
  const transfer = new TransferOf();
  transfer.items.add(file);
  const box = el.getBoundingClientRect();
  const at = { clientX: box.left + box.width / 2, clientY: box.top + box.height / 2 };
  const fire = (type: string) =>
    el.dispatchEvent(
      new DragOf(type, {
        bubbles: true,
        cancelable: true,
        composed: true,
        dataTransfer: transfer,
        ...at,
      }) as never,
    );
  fire("dragenter");
  // A drop zone says it takes the drop by cancelling dragover; one that does not would see none.
  const accepted = !fire("dragover");
  if (!accepted) {
    fire("dragleave");
    return {
      success: false,
      error: `That <${el.localName}> does not take dropped files (the page did not accept the drag over it). Point at the page's drop zone, or at an <input type="file"> without drop: true.`,
    };
  }
  fire("drop");
  return { success: true, uploaded: name, bytes: file.size, dropped: true };
}
