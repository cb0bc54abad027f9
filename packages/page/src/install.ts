/**
 * Entry of the injected script (bundled as one IIFE): installs `globalThis.__webbrainPage`
 * (`handle`, `handleJson`, `cancelWaits`, `version`) once per realm. A second injection into
 * the same realm keeps the first instance, so refs and pending verifications survive
 * re-injection.
 */
import { cancelWaits } from "./actions/wait-actions.js";
import { createRealmPageLayer, PAGE_LAYER_VERSION, type PageLayer } from "./handle.js";
import { installLeaveWatch } from "./leave-watch.js";
import { installListenerHook } from "./listeners.js";
import { installPopupWatch } from "./popup-watch.js";
import { type RecordingSink, startRecording } from "./recorder.js";

interface InstalledPageLayer extends PageLayer {
  /** Ends the waits in progress (the caller stopped); answers how many. */
  cancelWaits: () => number;
  /** Reports what the person does on this window's pages to `send` (recorder.ts); answers the stop. */
  record: (send: RecordingSink) => () => void;
  version: string;
}

const scope = globalThis as typeof globalThis & { __webbrainPage?: InstalledPageLayer };
// First, before page scripts run (preload / document_start): record the listeners they add.
installListenerHook(window);
// Also before page scripts: count the popups Firefox blocks (window.open answering null).
installPopupWatch(window);
// And whether the document is being left (a beforeunload prompt delays the navigation).
installLeaveWatch(window);
if (!scope.__webbrainPage) {
  // `document` is read at each call: this realm may show a later document than the one it was
  // installed in (a same-origin load into a frame's initial about:blank keeps the Window).
  scope.__webbrainPage = {
    ...createRealmPageLayer(() => document),
    cancelWaits,
    record: (send) => startRecording(window, send),
    version: PAGE_LAYER_VERSION,
  };
}
