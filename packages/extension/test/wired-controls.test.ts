/**
 * Script-wired controls and inferred states on the add-on's port: the built add-on (its
 * document_start listener hook and its page script, both content scripts) in real Firefox, on
 * the same fixtures the page layer's runner-port test uses (packages/page/test/wired-controls).
 * The tree and clicks are asked of the content script through browser.tabs.executeScript from an
 * add-on page, so they run in the content-script realm exactly as the add-on's port runs them.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { evaluate, navigate } from "@webbrain/bidi";
import { type PageResult, pageResultOf } from "@webbrain/protocol";
import { type FixtureServer, lineOf, refIn, startFixtureServer, useFirefox } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADDON_PREFS, buildAddon, firefoxTabId, installAddon, waitForContext } from "./addon-harness.js";

const require = createRequire(import.meta.url);
const firefox = useFirefox({ prefs: ADDON_PREFS });
let server: FixtureServer;
let addon: { dir: string; remove(): Promise<void> };
let settings: string;

beforeAll(async () => {
  const jquery = await readFile(require.resolve("jquery/dist/jquery.min.js"), "utf8");
  server = await startFixtureServer({
    routes: {
      "/vendor/jquery.js": (_req, res) => {
        res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
        res.end(jquery);
      },
    },
  });
  addon = await buildAddon();
  await installAddon(firefox.client, addon.dir);
  settings = await waitForContext(
    firefox.client,
    (url) => url.includes("/settings.html"),
    "the settings page",
  );
}, 120_000);

afterAll(async () => {
  await server?.close();
  await addon?.remove();
});

interface AddonPage {
  context: string;
  call(action: string, params?: Record<string, unknown>): Promise<PageResult>;
  tree(): Promise<string>;
  last(): Promise<string>;
}

async function open(path: string): Promise<AddonPage> {
  const context = await firefox.newTab();
  const url = server.url(path);
  await navigate(firefox.client, context, url);
  const tabId = await firefoxTabId(firefox.client, settings, url);
  const call = async (action: string, params: Record<string, unknown> = {}) => {
    const code = `__webbrainPage.handle(${JSON.stringify(action)}, ${JSON.stringify(params)}).then((r) => JSON.stringify(r))`;
    const json = await evaluate<string>(
      firefox.client,
      settings,
      `browser.tabs.executeScript(${tabId}, { code: ${JSON.stringify(code)} }).then((r) => r[0])`,
      { awaitPromise: true },
    );
    // As the add-on's content glue reads an answer: the PageResult of the page wire envelope.
    return pageResultOf(JSON.parse(json));
  };
  return {
    context,
    call,
    async tree() {
      const result = await call("get_accessibility_tree");
      if (!result.success) throw new Error(`tree failed: ${String(result.error)}`);
      return String(result.tree);
    },
    last: () => evaluate<string>(firefox.client, context, "document.getElementById('last').textContent"),
  };
}

async function click(page: AddonPage, line: string): Promise<void> {
  const result = await page.call("click_ax", { ref_id: refIn(line) });
  expect(result.success, JSON.stringify(result)).toBe(true);
}

describe("script-wired controls (add-on port)", () => {
  it("gives jQuery direct and delegated handlers and autocomplete items their own refs", async () => {
    const page = await open("/page/wired/jquery.html");
    const tree = await page.tree();
    const trash = tree.split("\n").filter((l) => /\[\d+\] clickable "[^"]*" class="icon trash"/.test(l));
    expect(trash).toHaveLength(2);
    expect(tree.split("\n").filter((l) => /class="icon email-reply"/.test(l))).toHaveLength(2);
    expect(tree).toMatch(/\[\d+\] clickable "Grace"/);
    await click(page, trash[1] ?? "");
    expect(await page.last()).toBe("trash 2");

    const typed = await page.call("type_ax", { ref_id: refIn(lineOf(tree, /textbox "City"/)), value: "Pa" });
    expect(typed.success, JSON.stringify(typed)).toBe(true);
    const after = await page.tree();
    const parma = lineOf(after, /\[\d+\] \w+ "Parma"$/);
    expect(lineOf(after, /\[\d+\] \w+ "Paris"$/)).not.toBe("");
    await click(page, parma);
    expect(await page.last()).toBe("picked Parma");
  });

  it("finds icon-only tools, property handlers, the calendar, the custom tree and checkboxes", async () => {
    const page = await open("/page/wired/widgets.html");
    let tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] clickable "Archive"/);
    expect(tree).toMatch(/\[\d+\] clickable "[^"]*" class="tool star"/);
    expect(tree).toMatch(/\[\d+\] clickable "Refresh"/);
    expect(tree).toMatch(/\[\d+\] clickable "3" selected/);
    expect(tree).toMatch(/\[\d+\] clickable "Documents" collapsed/);
    expect(tree).toMatch(/\[\d+\] clickable "Pictures" expanded/);
    expect(tree).toMatch(/\[\d+\] checkbox "Accept terms" checked/);
    expect(tree).toMatch(/\[\d+\] clickable "Month" disabled/);
    await click(page, lineOf(tree, /clickable ">"/));
    expect(
      await evaluate<string>(firefox.client, page.context, "document.getElementById('month').textContent"),
    ).toBe("April 2024");
    await click(page, lineOf(tree, /clickable "Documents"/));
    tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] clickable "Documents" expanded/);
    expect(tree).toMatch(/clickable "report\.txt"/);
    // The hook is invisible to the page.
    expect(
      await evaluate<string>(firefox.client, page.context, "String(EventTarget.prototype.addEventListener)"),
    ).toContain("[native code]");
  });

  it("describes an SVG drawing's shapes, refs its wired ones, and their listeners see window.event", async () => {
    const page = await open("/page/wired/svg.html");
    const tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] circle red at \d+,\d+ 40x40/);
    expect(tree).toMatch(/\[\d+\] rectangle blue at \d+,\d+ 40x40/);
    expect(tree).toMatch(/^ {2}text "Q" magenta at \d+,\d+ \d+x\d+$/m);
    expect(tree).toMatch(/\[\d+\] button "Save"$/m);
    expect(tree).not.toContain("path");
    expect(tree).toContain("… 30 more shapes not shown");
    // Added by addEventListener through the hook: the handler reads the global `event`.
    await click(page, lineOf(tree, /\] circle red/));
    expect(await page.last()).toBe("red circle");
    await click(page, lineOf(tree, /\] rectangle blue/));
    expect(await page.last()).toBe("blue rect");
  });
});
