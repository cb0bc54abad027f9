/**
 * Content-script glue: answers the background page's messages in this frame. Page actions go to
 * the page script that the manifest loads just before this file (`globalThis.__webbrainPage`);
 * execute_js, resource URLs and file attachment are done here (content-messages.ts).
 *
 * Invariants: it answers only its own message types and leaves every other message to other
 * listeners (returns undefined); an answer is always one plain JSON object with `success`, even
 * when the page script throws or is missing, so the agent gets a sentence instead of a hang.
 * Runs in every frame (manifest `all_frames`); the background page picks the frame by frameId.
 * Installs its listener once per frame, however many times the file runs there.
 */
import { pageResultOf } from "@webbrain/protocol";
import { isPageActionMessage } from "../shared/page-messages.js";
import {
  ATTACH_FILE_MESSAGE,
  CANCEL_WAITS_MESSAGE,
  type ContentMessage,
  EXECUTE_JS_MESSAGE,
  isContentMessage,
  RECORD_START_MESSAGE,
  RECORD_STOP_MESSAGE,
  RECORDED_ACTION_MESSAGE,
  RECORDING_QUERY_MESSAGE,
  RESOURCE_URL_MESSAGE,
} from "./content-messages.js";
import { attachFile } from "./file-attach.js";
import { installDialogWatch, withPageEffects } from "./page-effects.js";
import { executeJs } from "./page-realm-eval.js";
import { PAGE_SCRIPT_MISSING, pageScript } from "./page-script-api.js";
import { resourceUrl } from "./resource-url.js";

/** Results cross the message channel as JSON; this strips DOM nodes and functions. */
function toJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? { success: false, error: "the page action returned nothing" }));
}

/**
 * A page action in this frame, answered as a PageResult: the page layer's answer without its
 * runner part (a resolved element, a plan: the add-on presses nothing itself), then what the
 * action did beyond the page (page-effects.ts).
 */
async function runAction(action: string, params: Record<string, unknown>): Promise<unknown> {
  const api = pageScript();
  if (api === undefined) return { success: false, error: PAGE_SCRIPT_MISSING };
  try {
    return toJson(await withPageEffects(async () => pageResultOf(await api.handle(action, params))));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { success: false, error: `page action ${action} failed inside the page: ${message}` };
  }
}

/** This frame's recording of the person (RECORD_START_MESSAGE), while one runs. */
let stopRecording: (() => void) | undefined;
/** Set while stopping: the last actions go into the stop's answer, not a message. */
let stopping: string[] | undefined;

function startRecording(): { success: boolean; error?: string } {
  const api = pageScript();
  if (!api?.record) return { success: false, error: PAGE_SCRIPT_MISSING };
  stopRecording ??= api.record((action) => {
    if (stopping) stopping.push(action);
    else void browser.runtime.sendMessage({ type: RECORDED_ACTION_MESSAGE, action });
  });
  return { success: true };
}

function endRecording(): { success: true; actions: string[] } {
  stopping = [];
  stopRecording?.();
  stopRecording = undefined;
  const actions = stopping;
  stopping = undefined;
  return { success: true, actions };
}

async function runContentMessage(message: ContentMessage): Promise<unknown> {
  try {
    switch (message.type) {
      case EXECUTE_JS_MESSAGE:
        return toJson(await executeJs(message));
      case RESOURCE_URL_MESSAGE:
        return toJson(await resourceUrl(message));
      case ATTACH_FILE_MESSAGE:
        return toJson(await attachFile(message));
      case CANCEL_WAITS_MESSAGE:
        return { success: true, cancelled: pageScript()?.cancelWaits?.() ?? 0 };
      case RECORD_START_MESSAGE:
        return startRecording();
      case RECORD_STOP_MESSAGE:
        return endRecording();
    }
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return { success: false, error: `${message.type} failed inside the page: ${text}` };
  }
}

// The background page injects this file into a frame that had not run it yet, and the manifest
// may still run it there afterwards (same content-script realm): one listener only, or every
// action would run twice.
const scope = globalThis as { __webbrainGlueInstalled?: boolean };
if (!scope.__webbrainGlueInstalled) {
  scope.__webbrainGlueInstalled = true;
  installDialogWatch();
  browser.runtime.onMessage.addListener((message) => {
    if (isPageActionMessage(message)) return runAction(message.action, message.params);
    if (isContentMessage(message)) return runContentMessage(message);
    return undefined;
  });
  // A new document of a tab being recorded goes on recording (the start message went to the last one).
  void browser.runtime
    .sendMessage({ type: RECORDING_QUERY_MESSAGE })
    .then((answer) => {
      if ((answer as { recording?: unknown } | undefined)?.recording === true) startRecording();
    })
    .catch(() => {});
}
