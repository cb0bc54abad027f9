/**
 * Frame tools through the installed add-on's BrowserPort in real Firefox, on testkit's
 * frames/checkout.html: a field in a same-origin frame, in a cross-origin frame (the server's
 * other origin) and in a same-origin frame nested in another, plus a field on the top page.
 * Each frame's own page says what was typed there, read in that frame's own realm.
 *
 * Issue 27: iframe_type answered not_found for the same-origin frame's field that the tree showed
 * (on the runner; this file holds the add-on to the same calls). A same-origin frame's first
 * document (about:blank) is replaced without a new Window, so a page layer installed there must
 * not keep searching that empty document. The add-on passed these before the page-layer fix too
 * (seen on Firefox 153): its content scripts did not end up with the about:blank document.
 */
import { evaluate, navigate } from "@webbrain/bidi";
import { type FixtureServer, nodesIn, refByName, WITH_NODES } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import { type PortProbe, useProbedAddon } from "./port-probe.js";

type Result = Record<string, unknown> & { success: boolean; error?: string };

const FRAMES = ["same", "cross", "nested"] as const;
type FrameName = (typeof FRAMES)[number];

let fixtures: FixtureServer;
let probe: PortProbe;
const firefox = useProbedAddon((probed) => {
  ({ fixtures, probe } = probed);
});

let opened = 0;
/** checkout.html in a new tab, with all its frames loaded; answers the port's tab id and the BiDi context. */
async function openCheckout(): Promise<{ tab: string; context: string }> {
  const context = await firefox.newTab();
  const url = new URL("/frames/checkout.html", fixtures.origin);
  url.searchParams.set("case", String(++opened));
  await navigate(firefox.client, context, url.href);
  return { tab: await probe.tabIdOf(url.href), context };
}

function pageAction(tab: string, action: string, params: Record<string, unknown> = {}): Promise<Result> {
  return probe.call<Result>("pageAction", tab, action, params);
}

/** What a frame's own page wrote down about typing, read in that frame's realm (not the layer's). */
async function typedIn(context: string, frame: FrameName): Promise<string> {
  const tree = await firefox.client.send("browsingContext.getTree", { root: context });
  const found: string[] = [];
  const visit = (infos: typeof tree.contexts): string | undefined => {
    for (const info of infos) {
      found.push(info.url);
      if (info.url.includes(`frame=${frame}`)) return info.context;
      const inner = info.children ? visit(info.children) : undefined;
      if (inner) return inner;
    }
    return undefined;
  };
  const frameContext = visit(tree.contexts);
  if (!frameContext) throw new Error(`no frame=${frame} in ${found.join(", ")}`);
  return evaluate<string>(firefox.client, frameContext, 'document.getElementById("typed").textContent');
}

describe("iframe_type in same-origin, cross-origin and nested frames", () => {
  it("types by selector into each frame's field, and nowhere else", async () => {
    const { tab, context } = await openCheckout();
    for (const frame of FRAMES) {
      const typed = await pageAction(tab, "iframe_type", {
        urlFilter: `frame=${frame}`,
        selector: "#frame-email",
        text: `${frame}@example.org`,
      });
      expect(typed, frame).toMatchObject({ success: true });
      expect(String(typed.frame), frame).toContain(`frame=${frame}`);
      expect(await typedIn(context, frame)).toMatch(new RegExp(`^typed ${frame}@example\\.org `));
    }
    const top = await pageAction(tab, "verify_form", {});
    expect(JSON.stringify(top)).toContain("TOP-NOTE");
    expect(JSON.stringify(top)).not.toContain("@example.org");
  });

  it("types by the tree's ref into same-origin and nested frames' fields (the tree shows no cross-origin field)", async () => {
    const { tab, context } = await openCheckout();
    const shown = await pageAction(tab, "get_accessibility_tree", WITH_NODES);
    expect(shown.success, String(shown.error)).toBe(true);
    const nodes = nodesIn(shown);
    expect(String(shown.tree)).not.toContain("Email cross");
    for (const frame of ["same", "nested"] as const) {
      const typed = await pageAction(tab, "type_ax", {
        ref_id: refByName(nodes, "textbox", `Email ${frame}`),
        value: `ref-${frame}@example.org`,
      });
      expect(typed, frame).toMatchObject({ success: true });
      expect(await typedIn(context, frame)).toMatch(new RegExp(`^typed ref-${frame}@example\\.org `));
    }
  });

  it("picks the frame by the iframe's ref in the tree", async () => {
    const { tab, context } = await openCheckout();
    const nodes = nodesIn(await pageAction(tab, "get_accessibility_tree", WITH_NODES));
    for (const [frame, title] of [
      ["same", "Same-origin frame"],
      ["cross", "Cross-origin frame"],
    ] as const) {
      const typed = await pageAction(tab, "iframe_type", {
        ref_id: refByName(nodes, "iframe", title),
        selector: "#frame-email",
        text: `by-ref-${frame}@example.org`,
      });
      expect(typed, frame).toMatchObject({ success: true });
      expect(String(typed.frame), frame).toContain(`frame=${frame}`);
      expect(await typedIn(context, frame)).toMatch(new RegExp(`^typed by-ref-${frame}@example\\.org `));
    }
  });
});

describe("verify_form {urlFilter}", () => {
  it("reads the frame the urlFilter names, not the top page", async () => {
    const { tab } = await openCheckout();
    for (const frame of FRAMES) {
      const typed = await pageAction(tab, "iframe_type", {
        urlFilter: `frame=${frame}`,
        selector: "#frame-email",
        text: `${frame}@example.org`,
      });
      expect(typed.success, String(typed.error)).toBe(true);
      const verified = await pageAction(tab, "verify_form", { urlFilter: `frame=${frame}` });
      expect(verified.success, String(verified.error)).toBe(true);
      expect(String(verified.frame)).toContain(`frame=${frame}`);
      const text = JSON.stringify(verified);
      expect(text).toContain(`${frame}@example.org`);
      expect(text).not.toContain("TOP-NOTE");
    }
  });
});
