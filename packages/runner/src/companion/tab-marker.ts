/**
 * Which browsing context is the add-on's tab: the add-on writes a random token into the tab's
 * document (COMPANION_TAB_MARKER_ATTRIBUTE on the root element, from its content-script world),
 * and the companion reads that attribute in every top-level context. A URL would not do: two
 * tabs may show the same one. The read runs in a sandbox realm, so a page that replaces
 * `getAttribute` cannot lie about it (the attribute itself is only the token the add-on chose;
 * a page can erase its own marker, which makes its tab unmappable, never another tab's).
 */
import type { BidiClient } from "@webbrain/bidi";
import { COMPANION_TAB_MARKER_ATTRIBUTE } from "@webbrain/protocol";

const MARKER_SANDBOX = "webbrain-companion-marker";

export async function findMarkedTab(
  client: BidiClient,
  contexts: readonly string[],
  marker: string,
): Promise<string | undefined> {
  const expression = `document.documentElement?.getAttribute(${JSON.stringify(COMPANION_TAB_MARKER_ATTRIBUTE)}) ?? null`;
  const found = await Promise.all(
    contexts.map(async (context) => {
      const answer = await client
        .send("script.evaluate", {
          expression,
          target: { context, sandbox: MARKER_SANDBOX },
          awaitPromise: false,
        })
        .catch(() => undefined);
      const value =
        answer?.type === "success" && answer.result.type === "string" ? answer.result.value : undefined;
      return value === marker ? context : undefined;
    }),
  );
  return found.find((context) => context !== undefined);
}
