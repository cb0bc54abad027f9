/**
 * The page script (@webbrain/page) as the content script sees it: the manifest loads it just
 * before the content script, into the same content-script realm, as `globalThis.__webbrainPage`.
 */
import type { PageAnswer } from "@webbrain/protocol";

export interface PageScriptApi {
  /** A page action's answer: the page wire envelope (@webbrain/protocol page-answer.ts). */
  handle(action: string, params: Record<string, unknown>): Promise<PageAnswer>;
  /** Ends the waits in progress (each answers `cancelled`); answers how many it ended. */
  cancelWaits?: () => number;
  /** Reports the person's actions as RecordedAction JSON texts; answers the stop (recorder.ts). */
  record?: (send: (action: string) => void) => () => void;
  version?: string;
}

export function pageScript(): PageScriptApi | undefined {
  const candidate = (globalThis as { __webbrainPage?: PageScriptApi }).__webbrainPage;
  return typeof candidate?.handle === "function" ? candidate : undefined;
}

export const PAGE_SCRIPT_MISSING =
  "WebBrain's page script is not loaded in this tab; reload the page and retry.";
