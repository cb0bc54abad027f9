/**
 * The page layer in a frame's own realm, installed the way the runner installs it: a preload
 * script in the sandbox, which runs in every new document, so also in each frame's initial
 * about:blank. On testkit's frames/checkout.html the same-origin frames then load their page
 * into that same Window (HTML "reuse the window"): the sandbox, and the layer in it, stay, and
 * the preload script does not run again. Issue 27: the layer kept answering for the about:blank
 * document, and its points carried the frame's offset in the parent although the runner presses
 * them in the frame's own browsing context.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildPageScript, buildRunnerRealmScript } from "../src/bundle.js";
import { PageSession, SANDBOX, usePageFixtures } from "./page-session.js";

const env = usePageFixtures();

let installer = "";
const preloads: string[] = [];

beforeAll(async () => {
  installer = `() => {\n${await buildRunnerRealmScript()}\n${await buildPageScript()}\n}`;
});

afterEach(async () => {
  for (const script of preloads.splice(0))
    await env.firefox.client.send("script.removePreloadScript", { script }).catch(() => undefined);
});

/** checkout.html in a tab whose documents all got the layer from a preload script; its sessions by frame. */
async function openCheckout(): Promise<{ top: PageSession; same: PageSession; nested: PageSession }> {
  const client = env.firefox.client;
  const context = await env.firefox.newTab();
  const { script } = await client.send("script.addPreloadScript", {
    functionDeclaration: installer,
    sandbox: SANDBOX,
    contexts: [context],
  });
  preloads.push(script);
  await client.send("browsingContext.navigate", {
    context,
    url: env.fixtures.url("/frames/checkout.html"),
    wait: "complete",
  });
  const tree = await client.send("browsingContext.getTree", { root: context });
  const frames = tree.contexts[0]?.children ?? [];
  const same = frames.find((info) => info.url.includes("frame=same"));
  const nested = frames
    .flatMap((info) => info.children ?? [])
    .find((info) => info.url.includes("frame=nested"));
  if (!same || !nested) throw new Error(`checkout.html's frames: ${JSON.stringify(frames)}`);
  return {
    top: new PageSession(client, context),
    same: new PageSession(client, same.context),
    nested: new PageSession(client, nested.context),
  };
}

describe("a frame's realm whose about:blank was replaced without a new Window", () => {
  it("answers for the document the frame shows now", async () => {
    const { same, nested } = await openCheckout();
    // No injection here: each call finds the layer the preload script put in the realm.
    for (const [frame, session] of [
      ["same", same],
      ["nested", nested],
    ] as const) {
      expect(await session.tree()).toContain(`textbox "Email ${frame}"`);
      const typed = await session.call("type_text", {
        selector: "#frame-email",
        text: `${frame}@example.org`,
      });
      expect(typed.success, String(typed.error)).toBe(true);
      expect(await session.page<string>('document.getElementById("frame-email").value')).toBe(
        `${frame}@example.org`,
      );
    }
  });

  it("gives a frame's points in the frame's own viewport, and the top's points in the top's", async () => {
    const { top, same } = await openCheckout();
    const inFrame = await same.call("type_text", { selector: "#frame-email", text: "a", mode: "resolve" });
    expect(inFrame.success, String(inFrame.error)).toBe(true);
    // Measured after the resolve call, which may have scrolled the field into view.
    const centre = await same.page<{ x: number; y: number }>(
      '(() => { const r = document.getElementById("frame-email").getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()',
    );
    expect(inFrame.runner?.point).toEqual({ x: Math.round(centre.x), y: Math.round(centre.y) });
    // The same field through the top's layer (a ref from the top's tree) is offset by the frame.
    const fromTop = await top.call("type_ax", {
      ref_id: await top.ref('textbox "Email same"'),
      value: "a",
      mode: "resolve",
    });
    expect(fromTop.success, String(fromTop.error)).toBe(true);
    const offset = await top.page<{ x: number; y: number }>(
      '(() => { const f = document.getElementById("same"); const r = f.getBoundingClientRect(); return { x: r.left + f.clientLeft, y: r.top + f.clientTop }; })()',
    );
    expect(offset.x + offset.y).toBeGreaterThan(0);
    expect(fromTop.runner?.point).toEqual({
      x: Math.round(centre.x + offset.x),
      y: Math.round(centre.y + offset.y),
    });
    // Pressed in the frame's own browsing context, the frame's plan types into the field.
    const typed = await same.runResolved(
      await same.call("type_text", { selector: "#frame-email", text: "trusted", mode: "resolve" }),
    );
    expect(typed.success, String(typed.error)).toBe(true);
    expect(await same.page<string>('document.getElementById("typed").textContent')).toBe(
      "typed trusted (trusted: true)",
    );
  });
});
