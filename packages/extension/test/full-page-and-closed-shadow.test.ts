/**
 * Two rows the add-on's "does not do" table held as platform limits, checked in Firefox with the
 * add-on installed (issue 23: a claimed limit is probed, and removed where it is a choice):
 * - full-page screenshots: `tabs.captureTab` with the document's rect draws the whole page,
 *   also what lies below the viewport (the port declares `full_page_screenshot`);
 * - closed shadow roots: the content script's page layer reads them through
 *   `openOrClosedShadowRoot`, so their controls are in the tree and a click lands there
 *   (synthetic, as every add-on click without the companion).
 */
import { evaluate, navigate } from "@webbrain/bidi";
import { type FixtureServer, findRef } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import { type PortProbe, useProbedAddon } from "./port-probe.js";

type Result = Record<string, unknown> & { success: boolean; error?: string };

/** Taller than any viewport, with a band at the very bottom a viewport capture cannot hold. */
const PAGE_HEIGHT_PX = 3_000;
const TALL_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Tall</title>
<style>body{margin:0}#top{height:${PAGE_HEIGHT_PX - 100}px;background:#fff}#band{height:100px;background:#00ff00}</style>
</head><body><div id="top"></div><div id="band"></div></body></html>`;

let fixtures: FixtureServer;
let probe: PortProbe;
const firefox = useProbedAddon(
  (probed) => {
    ({ fixtures, probe } = probed);
  },
  () => ({
    "/tall.html": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(TALL_PAGE);
    },
  }),
);

async function open(path: string) {
  const context = await firefox.newTab();
  const url = fixtures.url(path);
  await navigate(firefox.client, context, url);
  return { context, tab: await probe.tabIdOf(url) };
}

/** A PNG's size, from its IHDR chunk (bytes 16..24), without decoding it. */
function pngSize(base64: string): { width: number; height: number } {
  const head = Buffer.from(base64.slice(0, 64), "base64");
  expect(head.subarray(1, 4).toString("latin1")).toBe("PNG");
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

it("the port declares both capabilities", async () => {
  expect(await probe.capabilities()).toEqual(
    expect.arrayContaining(["full_page_screenshot", "closed_shadow_roots"]),
  );
});

describe("full-page screenshots through the add-on", () => {
  it("capture the whole document's height; the viewport capture stays the viewport", async () => {
    const { context, tab } = await open("/tall.html");
    const viewport = await evaluate<number>(firefox.client, context, "window.innerHeight");
    const ratio = await evaluate<number>(firefox.client, context, "window.devicePixelRatio");
    const full = await probe.call<{ mimeType: string; dataBase64: string }>("screenshot", tab, {
      full: true,
    });
    const shown = await probe.call<{ mimeType: string; dataBase64: string }>("screenshot", tab, {});
    expect(full.mimeType).toBe("image/png");
    expect(pngSize(full.dataBase64).height).toBe(Math.round(PAGE_HEIGHT_PX * ratio));
    expect(pngSize(shown.dataBase64).height).toBe(Math.round(viewport * ratio));
    expect(viewport).toBeLessThan(PAGE_HEIGHT_PX);
  });

  it("the screenshot tool says full: true and shows no 'viewport only' note", async () => {
    const { tab } = await open("/tall.html?tool=1");
    const answer = await probe.execute("screenshot", { full: true }, tab, "act", "full");
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.details).toMatchObject({ success: true, full: true });
    expect(answer.text).not.toContain("viewport only");
  });
});

describe("closed shadow roots through the add-on", () => {
  it("shows the controls of nested closed roots in the tree, and a click lands on each", async () => {
    const { context, tab } = await open("/runner/nested-shadow.html");
    const tree = String((await probe.call<Result>("pageAction", tab, "get_accessibility_tree", {})).tree);
    const status = () =>
      evaluate<string>(firefox.client, context, "document.getElementById('status').textContent");
    for (const name of ["Deep switch", "Locked action"]) {
      const clicked = await probe.call<Result>("pageAction", tab, "click_ax", {
        ref_id: findRef(tree, "button", name),
      });
      expect(clicked.success, JSON.stringify(clicked)).toBe(true);
      expect(await status()).toBe(`${name} clicked (trusted: false)`);
    }
  });
});
