/**
 * The page layer's popup watch (src/popup-watch.ts) in real Firefox, preloaded in the BiDi
 * sandbox as the runner does: a `window.open` the popup blocker refuses is counted once, in our
 * realm; an allowed one and a `noopener` one are not; the page still sees a native `open`.
 */
import type { BidiClient } from "@webbrain/bidi";
import { describe, expect, it } from "vitest";
import { TAKE_BLOCKED_POPUPS_EXPRESSION } from "../src/runner-realm/realm-protocol.js";
import type { PageSession } from "./page-session.js";
import { useWiredFixtures } from "./wired-session.js";

const { open } = useWiredFixtures();

/** Runs `expression` in the page's own realm, with or without a user gesture. */
async function inPage(client: BidiClient, context: string, expression: string, userActivation: boolean) {
  const answer = await client.send("script.evaluate", {
    expression,
    target: { context },
    awaitPromise: false,
    userActivation,
    resultOwnership: "none",
  });
  if (answer.type !== "success") throw new Error(`${expression} threw: ${answer.exceptionDetails.text}`);
  return answer.result;
}

async function takeBlocked(page: PageSession): Promise<unknown> {
  const answer = await page.client.send("script.evaluate", {
    expression: TAKE_BLOCKED_POPUPS_EXPRESSION,
    target: page.target,
    awaitPromise: false,
    resultOwnership: "none",
  });
  return answer.type === "success" ? answer.result : answer;
}

describe("popup watch", () => {
  it("counts refused window.open calls once, and leaves allowed and noopener ones out", async () => {
    const page = await open("/runner/popup-flood.html");
    const { client, context } = page;
    expect(await takeBlocked(page)).toEqual({ type: "number", value: 0 });

    const refused = await inPage(client, context, "String(window.open('about:blank', '_blank'))", false);
    expect(refused).toEqual({ type: "string", value: "null" });
    expect(await takeBlocked(page)).toEqual({ type: "number", value: 1 });
    expect(await takeBlocked(page)).toEqual({ type: "number", value: 0 }); // a take resets

    // noopener answers null even for a window it opens: never counted as blocked
    await inPage(client, context, "window.open('about:blank', '_blank', 'noopener'); 0", false);
    const allowed = await inPage(client, context, "window.open('about:blank', '_blank') !== null", true);
    expect(allowed).toEqual({ type: "boolean", value: true });
    expect(await takeBlocked(page)).toEqual({ type: "number", value: 0 });

    // What the page sees of the hook: a native open, and no count anywhere in its realm.
    const seen = await inPage(
      client,
      context,
      "[String(window.open).includes('[native code]'), window.open.name, typeof globalThis.__webbrainPopups].join()",
      false,
    );
    expect(seen).toEqual({ type: "string", value: "true,open,undefined" });
  });
});
