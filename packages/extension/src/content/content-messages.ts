/**
 * Messages the background page sends a frame's content script besides page actions
 * (shared/page-messages.ts): things the page layer does not do because they need the content
 * script's own powers (the page's realm through `window.wrappedJSObject`, building a File).
 *
 * Every answer is one plain JSON object with `success` and, on failure, `error`.
 */

export const EXECUTE_JS_MESSAGE = "webbrain_execute_js";
export const RESOURCE_URL_MESSAGE = "webbrain_resource_url";
export const ATTACH_FILE_MESSAGE = "webbrain_attach_file";
export const CANCEL_WAITS_MESSAGE = "webbrain_cancel_waits";
/** Start / stop reporting what the person does in this frame (the page layer's recorder). */
export const RECORD_START_MESSAGE = "webbrain_record_start";
export const RECORD_STOP_MESSAGE = "webbrain_record_stop";

/**
 * Set on a page action's answer when it followed a link (content/page-effects.ts); the
 * background page reads and removes it before the result goes on.
 */
export const LINK_FOLLOWED_FIELD = "__webbrainLinkFollowed";

export interface LinkFollowed {
  /** A link meant for a new tab that the popup blocker refused (no user activation): its URL. */
  blockedNewTab?: string;
}

export function isLinkFollowed(value: unknown): value is LinkFollowed {
  return typeof value === "object" && value !== null;
}

/**
 * From a content script to the background page: the document is being left by a navigation an
 * action started, and its "leave this page?" prompt was answered (content/page-effects.ts).
 */
export const PAGE_LEFT_MESSAGE = "webbrain_page_left";

export interface PageLeftMessage {
  type: typeof PAGE_LEFT_MESSAGE;
  /** In the runner's wording: `beforeunload "…" -> accepted`. */
  dialog: string;
}

export function isPageLeftMessage(value: unknown): value is PageLeftMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === PAGE_LEFT_MESSAGE &&
    typeof (value as { dialog?: unknown }).dialog === "string"
  );
}

/** Which element: a ref from this document's tree, or a CSS selector. */
export interface ElementTarget {
  ref_id?: number | string;
  selector?: string;
}

/** Run Dev mode's `execute_js` code in the page's own realm; answer its value as capped JSON. */
export interface ExecuteJsMessage {
  type: typeof EXECUTE_JS_MESSAGE;
  code: string;
  maxChars: number;
}

/** The URL behind an element (link, image, media, download button). */
export interface ResourceUrlMessage {
  type: typeof RESOURCE_URL_MESSAGE;
  target: ElementTarget;
}

/** Put a file (bytes from the background page) into an `<input type="file">`. */
export interface AttachFileMessage {
  type: typeof ATTACH_FILE_MESSAGE;
  target: ElementTarget;
  name: string;
  mime: string;
  dataBase64: string;
  /** Drop it on the target (a drop zone) instead of a file input. */
  drop?: boolean;
}

/** Stop: end the page layer's waits in progress in this frame (their calls answer `cancelled`). */
export interface CancelWaitsMessage {
  type: typeof CANCEL_WAITS_MESSAGE;
}

/**
 * Recording a person: start reports each action to the background page (RECORDED_ACTION_MESSAGE);
 * stop answers `{success, actions}`: the actions not yet reported (the field being typed in).
 */
export interface RecordControlMessage {
  type: typeof RECORD_START_MESSAGE | typeof RECORD_STOP_MESSAGE;
}

export type ContentMessage =
  | ExecuteJsMessage
  | ResourceUrlMessage
  | AttachFileMessage
  | CancelWaitsMessage
  | RecordControlMessage;

const TYPES: ReadonlySet<string> = new Set([
  EXECUTE_JS_MESSAGE,
  RESOURCE_URL_MESSAGE,
  ATTACH_FILE_MESSAGE,
  CANCEL_WAITS_MESSAGE,
  RECORD_START_MESSAGE,
  RECORD_STOP_MESSAGE,
]);

export function isContentMessage(value: unknown): value is ContentMessage {
  return typeof value === "object" && value !== null && TYPES.has(String((value as { type?: unknown }).type));
}

/**
 * From a content script to the background page while its tab is recorded: one RecordedAction
 * (@webbrain/protocol) as JSON text. A secret field's text is never in it (the page layer's rule).
 */
export const RECORDED_ACTION_MESSAGE = "webbrain_recorded_action";
/** From a content script that just started: is my tab being recorded? Answers `{recording}`. */
export const RECORDING_QUERY_MESSAGE = "webbrain_recording_query";

export interface RecordedActionMessage {
  type: typeof RECORDED_ACTION_MESSAGE;
  action: string;
}

export function isRecordedActionMessage(value: unknown): value is RecordedActionMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === RECORDED_ACTION_MESSAGE &&
    typeof (value as { action?: unknown }).action === "string"
  );
}

export function isRecordingQuery(value: unknown): value is { type: typeof RECORDING_QUERY_MESSAGE } {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === RECORDING_QUERY_MESSAGE
  );
}
