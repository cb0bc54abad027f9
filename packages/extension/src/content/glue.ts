/**
 * Content-script glue: answers the background page's page-action messages by calling the page
 * script that the manifest loads just before this file (`globalThis.__webbrainPage`).
 *
 * Invariants: it answers only PAGE_ACTION_MESSAGE and leaves every other message to other
 * listeners (returns undefined); an answer is always one plain JSON object with `success`, even
 * when the page script throws or is missing, so the agent gets a sentence instead of a hang.
 * Runs in the top frame only (the manifest does not ask for all_frames).
 */
import { isPageActionMessage } from "../shared/page-messages.js";

interface PageScriptApi {
  handle(action: string, params: Record<string, unknown>): unknown;
  version?: string;
}

function pageScript(): PageScriptApi | undefined {
  const candidate = (globalThis as { __webbrainPage?: PageScriptApi }).__webbrainPage;
  return typeof candidate?.handle === "function" ? candidate : undefined;
}

/** Results cross the message channel as JSON; this strips DOM nodes and functions. */
function toJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? { success: false, error: "the page action returned nothing" }));
}

async function runAction(action: string, params: Record<string, unknown>): Promise<unknown> {
  const api = pageScript();
  if (api === undefined) {
    return {
      success: false,
      error: "WebBrain's page script is not loaded in this tab; reload the page and retry.",
    };
  }
  try {
    return toJson(await api.handle(action, params));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { success: false, error: `page action ${action} failed inside the page: ${message}` };
  }
}

browser.runtime.onMessage.addListener((message) => {
  if (!isPageActionMessage(message)) return undefined;
  return runAction(message.action, message.params);
});
